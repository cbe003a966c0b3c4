/**
 * The fixed human-facing texts of the `/dcp` commands (DCP.md §11.2, §11.3) and the control-turn notices (§11.6).
 * Command results are shown to the human only; they never enter the model history.
 */
import { assertNever } from '../assert-never.js';

/** The help block, verbatim. */
export const HELP_TEXT = [
  'DCP commands:',
  '/dcp help                              show this help',
  '/dcp context                           show the current context breakdown',
  '/dcp stats                             show pruning statistics (this session and all sessions)',
  '/dcp manual [on|off|status]            switch or show manual mode',
  '/dcp compress [focus]                  ask the model to compress closed ranges now',
  '/dcp sweep                             run automatic pruning now (no model request)',
  '/dcp show <bN> [--raw]                 show a compressed block (--raw: original messages)',
  '/dcp decompress <bN> [--into-context]  show a block; --into-context expands it into the context',
  '/dcp recompress <bN>                   compress an expanded block again',
  'Range compression itself is done by the model through the compress tool.',
].join('\n');

/** `/dcp manual on|off` success text. */
export function manualSwitchedText(on: boolean): string {
  return on ? 'Manual mode is now ON.' : 'Manual mode is now OFF.';
}

/** `/dcp manual` and `/dcp manual status` text. */
export function manualStatusText(on: boolean): string {
  return on ? 'Manual mode is ON.' : 'Manual mode is OFF.';
}

/** `/dcp manual <other>` text. */
export function manualUsageText(on: boolean): string {
  return `Usage: /dcp manual [on|off|status]. Current: ${on ? 'ON' : 'OFF'}.`;
}

/** `/dcp compress [focus]` success text. */
export const COMPRESS_TRIGGERED_TEXT = 'Compression triggered; the model will select closed ranges in the next turn.';

/** `/dcp compress` with compress disabled (kind error). */
export const COMPRESSION_DISABLED_TEXT = 'Compression is disabled by configuration.';

/** `/dcp sweep` success text. */
export const SWEEP_SCHEDULED_TEXT = 'Sweep scheduled in a control turn (no model request).';

/** `/dcp show` of an unknown block. */
export function blockDoesNotExistText(blockRef: string): string {
  return `Compression ${blockRef} does not exist.`;
}

/** The note after the raw show of `/dcp decompress <bN>`. */
export const DECOMPRESS_NOTE_TEXT = 'Note: model context is unchanged (raw show only). Use --into-context to expand.';

/** `/dcp decompress <bN> --into-context` after its pre-checks passed. */
export function expansionScheduledText(blockRef: string): string {
  return `${blockRef} will be expanded into quoted context in a control turn.`;
}

/** `/dcp recompress <bN>` after its pre-checks passed. */
export function recompressionScheduledText(blockRef: string): string {
  return `${blockRef} will be re-compressed in a control turn.`;
}

/** Usage error of `/dcp show`. */
export const SHOW_USAGE_TEXT = 'Usage: /dcp show <bN> [--raw]';

/** Usage error of `/dcp decompress`. */
export const DECOMPRESS_USAGE_TEXT = 'Usage: /dcp decompress <bN> [--into-context]';

/** Usage error of `/dcp recompress`. */
export const RECOMPRESS_USAGE_TEXT = 'Usage: /dcp recompress <bN>';

/** Unknown sub-command error. */
export function unknownSubcommandText(subcommand: string): string {
  return `Unknown /dcp subcommand "${subcommand}". Use /dcp help.`;
}

/** §11.6 rule 4: a control whose turn was rejected. `body` is the control BODY text. */
export function controlRejectedNotice(body: string): string {
  return `DCP: ${body} was not run because the turn was rejected.`;
}

/** §11.6 rule 6: the outcome of a sweep control. */
export type SweepOutcome =
  | { readonly kind: 'pruned'; readonly deduplicated: number; readonly purged: number; readonly tokensSaved: number }
  | { readonly kind: 'nothing' }
  | { readonly kind: 'busy' }
  /** Manual mode is on and `manualMode.automaticStrategies` is false: no strategy runs, a sweep included (§8.1 rule 4). */
  | { readonly kind: 'manual' };

/** The notice of a sweep outcome. A batch that pruned nothing is reported as `nothing`. */
export function sweepNotice(outcome: SweepOutcome): string {
  switch (outcome.kind) {
    case 'pruned':
      if (outcome.deduplicated + outcome.purged === 0) return 'DCP sweep: nothing to prune.';
      return `DCP sweep: pruned ${outcome.deduplicated} duplicate output(s) and ${outcome.purged} errored unit(s), ~${outcome.tokensSaved} tokens.`;
    case 'nothing':
      return 'DCP sweep: nothing to prune.';
    case 'busy':
      return 'DCP sweep skipped: compaction is busy.';
    case 'manual':
      return 'DCP sweep skipped: manual mode is on and automatic strategies are off.';
    default:
      return assertNever(outcome, 'unexpected outcome');
  }
}

/** The notice of an expansion: `DCP: bN expanded into bM.` or `DCP: bN was not expanded: <reason>`. */
export function expansionNotice(
  oldRef: string,
  result: { readonly ok: true; readonly newRef: string } | { readonly ok: false; readonly reason: string },
): string {
  return result.ok ? `DCP: ${oldRef} expanded into ${result.newRef}.` : `DCP: ${oldRef} was not expanded: ${result.reason}`;
}

/** The notice of a recompression: `DCP: bN re-compressed into bM.` or `DCP: bN was not re-compressed: <reason>`. */
export function recompressionNotice(
  oldRef: string,
  result: { readonly ok: true; readonly newRef: string } | { readonly ok: false; readonly reason: string },
): string {
  return result.ok ? `DCP: ${oldRef} re-compressed into ${result.newRef}.` : `DCP: ${oldRef} was not re-compressed: ${result.reason}`;
}
