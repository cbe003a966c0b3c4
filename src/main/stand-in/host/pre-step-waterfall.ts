/**
 * The `agent/pre-step` waterfall (HOST.md §6.3): its payload, its decisions, the default decision at the
 * innermost `next()`, and the shape check a decision passes before anything of it is logged.
 */
import { checkMessageShape } from '../../../protocol/message-shape.js';
import { isLosslessJson } from '../../../protocol/lossless-json.js';
import type { UserMessage } from '../../../protocol/user-message.js';
import { runWaterfall } from './waterfall.js';
import type { PreStepPayload, EnterDecision, PreStepDecision, PreStepListener } from '../../host-api/host-api.js';

/**
 * The runtime-context provider (HOST.md §6.3): an optional snapshot message with source
 * `{kind:'plugin', plugin:<provider>, form:'snapshot'}`, emitted only when the dynamic context changed or the
 * latest snapshot left the surface.
 */
export type RuntimeContextProvider = (payload: PreStepPayload) => UserMessage | undefined;

/** The innermost decision: `enter([...payload.messages, runtimeSnapshot?])`. */
export function defaultPreStepDecision(payload: PreStepPayload, runtimeContext: RuntimeContextProvider | undefined): EnterDecision {
  const snapshot = runtimeContext?.(payload);
  return { kind: 'enter', messages: snapshot === undefined ? [...payload.messages] : [...payload.messages, snapshot] };
}

/**
 * Checks a decision before anything of it is logged, so that a bad decision fails like a throwing listener
 * (no `step/start`, HOST.md §6.2): a `TypeError` unless `value` is `{kind:'reject'}` or
 * `{kind:'enter', messages: []}`; each message must pass the `user/message` shape rules of SESSION-LOG.md §4.4
 * (subject `agent/pre-step decision message <i>`) and be lossless JSON.
 */
export function checkPreStepDecision(value: unknown): asserts value is PreStepDecision {
  const decision = value as { readonly kind?: unknown; readonly messages?: unknown } | null | undefined;
  if (decision?.kind === 'reject') return;
  if (decision?.kind !== 'enter' || !Array.isArray(decision.messages)) {
    throw new TypeError("agent/pre-step decision must be {kind:'reject'} or {kind:'enter', messages}");
  }
  decision.messages.forEach((message: unknown, index: number) => {
    const subject = `agent/pre-step decision message ${index}`;
    checkMessageShape('user/message', message, subject);
    if (!isLosslessJson(message)) throw new TypeError(`${subject} is not JSON-serializable`);
  });
}

/** Runs the listeners around the default decision and checks the outcome. */
export async function runPreStepWaterfall(
  listeners: readonly PreStepListener[],
  payload: PreStepPayload,
  runtimeContext: RuntimeContextProvider | undefined,
): Promise<PreStepDecision> {
  const decision = await runWaterfall('agent/pre-step', listeners, payload, () => defaultPreStepDecision(payload, runtimeContext));
  checkPreStepDecision(decision);
  return decision;
}
