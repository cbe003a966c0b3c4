/**
 * The DCP `agent/pre-step` listener (DCP.md §11.6; §4.1, §8.1). Registered without `prepend`, so the
 * session-reference listener stays outermost. It takes the downstream decision, runs this step's valid controls,
 * runs the automatic strategies when §8.1 allows, and, when the step will call the model and the `compress` tool
 * is registered, puts the boundary marker first (measured after the prunes).
 */
import type { ControlBody, RecognizedControl } from '../../../protocol/dcp/control-message.js';
import { formatControlBody, recognizeControl } from '../../../protocol/dcp/control-message.js';
import { controlRejectedNotice, expansionNotice, recompressionNotice, sweepNotice } from '../../../protocol/dcp/command-texts.js';
import type { UserMessage } from '../../../protocol/user-message.js';
import type { PreStepDecision, PreStepListener } from '../../host-api/host-api.js';
import { expandBlock, recompressBlock } from './block-expansion.js';
import { buildBoundaryMarker } from './boundary-marker.js';
import type { DcpSessionContext } from './dcp-session-context.js';
import type { DcpRuntime, PendingControl } from './dcp-runtime.js';
import type { StrategyBatchResult } from './strategy-batch.js';
import { runStrategyBatch, strategiesFor } from './strategy-batch.js';
import { assertNever } from '../../../protocol/assert-never.js';

/** A valid control of this step with the message that carried it. */
interface ClaimedControl {
  readonly message: UserMessage;
  readonly control: RecognizedControl;
  readonly pending: PendingControl;
}

/** No control (shared: the usual step claims none). */
const NO_CONTROLS: readonly ClaimedControl[] = Object.freeze([]);

/** §11.6 rule 3: the valid controls among the step's claimed messages, in claim order. */
function claimedControls(runtime: DcpRuntime, messages: readonly UserMessage[]): readonly ClaimedControl[] {
  // Controls exist only while a command queued one: the usual step looks at nothing.
  if (runtime.pendingControls.size === 0) return NO_CONTROLS;
  const out: ClaimedControl[] = [];
  for (const message of messages) {
    const control = recognizeControl(message, (commandId) => runtime.pendingControls.has(commandId));
    const pending = control === undefined ? undefined : runtime.pendingControls.get(control.commandId);
    if (control !== undefined && pending !== undefined) out.push({ message, control, pending });
  }
  return out;
}

/** The notice of a sweep batch (§11.6 rule 6). */
function sweepOutcomeNotice(result: StrategyBatchResult | undefined): string {
  if (result === undefined) return sweepNotice({ kind: 'nothing' });
  if (result.kind === 'busy') return sweepNotice({ kind: 'busy' });
  return sweepNotice({ kind: 'pruned', deduplicated: result.deduplicated, purged: result.purged, tokensSaved: result.tokensSaved });
}

/** Logs a batch that wrote something at debug level (§8.2), and a host refusal as a warning; an empty batch is silent. */
function logBatch(runtime: DcpRuntime, result: StrategyBatchResult): void {
  if (result.kind === 'busy') {
    runtime.logger.debug('DCP strategies skipped: compaction is busy');
    return;
  }
  if (result.deduplicated + result.purged === 0 && result.hostError === undefined) return;
  runtime.logger.debug(
    `DCP strategies: ${result.deduplicated} deduplicated, ${result.purged} purged, ~${result.tokensSaved} tokens, first position ${result.firstPosition ?? 'none'}`,
  );
  if (result.hostError !== undefined) runtime.logger.warn(`DCP strategy batch stopped: ${result.hostError}`);
}

/**
 * A control's notice and whether the control did what it was scheduled for. A control that could not run (a busy
 * sweep, a refused expansion or recompression) is notified at level `warn`, so a host (and `sessionctx dcp`) can
 * tell the outcome from the text it shows; a sweep that found nothing to prune did run.
 */
interface ControlOutcome {
  readonly text: string;
  readonly ok: boolean;
}

/** Runs one control body synchronously and returns its notice (§11.6 rule 6). */
function runControl(context: DcpSessionContext, turn: number, body: ControlBody): ControlOutcome {
  const { runtime, index } = context;
  switch (body.kind) {
    case 'sweep': {
      // The manual rule holds for a sweep too (§8.1 rule 4), as in dsh-dcp; the human is told why nothing ran.
      if (index.manualOn && !runtime.config.manualMode.automaticStrategies) return { text: sweepNotice({ kind: 'manual' }), ok: false };
      const selection = strategiesFor(runtime, index.manualOn, { kind: 'sweep' });
      const result = selection === undefined ? undefined : runStrategyBatch(context, turn, selection);
      if (result !== undefined) logBatch(runtime, result);
      return { text: sweepOutcomeNotice(result), ok: result?.kind !== 'busy' };
    }
    case 'expand': {
      const outcome = expandBlock(context, body.blockRef, turn);
      return { text: expansionNotice(body.blockRef, outcome), ok: outcome.ok };
    }
    case 'recompress': {
      const outcome = recompressBlock(context, body.blockRef, turn);
      return { text: recompressionNotice(body.blockRef, outcome), ok: outcome.ok };
    }
    default:
      return assertNever(body, 'unexpected control');
  }
}

/** The listener for `runtime`; `toolRegistered` is `dcp.enabled && compress.enabled` (§4.1 rule 1). */
export function createDcpPreStepListener(runtime: DcpRuntime, toolRegistered: boolean): PreStepListener {
  return async (payload, next): Promise<PreStepDecision> => {
    const decision = await next();
    if (payload.signal.aborted) return decision;
    const controls = claimedControls(runtime, payload.messages);
    if (decision.kind === 'reject') {
      for (const { control, pending } of controls) {
        runtime.pendingControls.delete(control.commandId);
        pending.notify(controlRejectedNotice(formatControlBody(control.body)), 'warn');
      }
      return decision;
    }
    const messages =
      controls.length === 0
        ? decision.messages
        : decision.messages.filter((message) => !controls.some((control) => control.message.id === message.id));
    const dcp = runtime.sessionContext(payload.session);
    const { index } = dcp;
    let swept = false;
    for (const { control, pending } of controls) {
      runtime.pendingControls.delete(control.commandId);
      if (control.body.kind === 'sweep') swept = true;
      const outcome = runControl(dcp, payload.turn, control.body);
      pending.notify(outcome.text, outcome.ok ? 'info' : 'warn');
    }
    // §11.6 rule 7: a control turn ends with no model request; derived extras (a runtime snapshot) are dropped.
    if (controls.length > 0 && controls.length === payload.messages.length) return { kind: 'enter', messages: [] };
    // §4.1 rule 3: an `enter([])` at the first pre-step (`step === 1`) is a no-model-call turn and stays one.
    const willCall = payload.step > 1 || messages.length > 0;
    if (!willCall) return { kind: 'enter', messages };
    if (!swept) {
      const selection = strategiesFor(runtime, index.manualOn, { kind: 'pre-step', step: payload.step });
      if (selection !== undefined) logBatch(runtime, runStrategyBatch(dcp, payload.turn, selection));
    }
    if (!toolRegistered) return { kind: 'enter', messages };
    const marker = buildBoundaryMarker(index, payload.session, runtime.config, payload.turn, payload.step);
    return { kind: 'enter', messages: [marker, ...messages] };
  };
}
