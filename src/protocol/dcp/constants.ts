/**
 * The exact literals of DCP protocol v1 (DCP.md §2). Every DCP text that reaches the log, the model or a
 * regex is spelled here once, so that a typo cannot split readers from writers.
 */

/** `source.plugin` of DCP's own plugin messages: markers, purge checkpoints, triggers and controls. */
export const DCP_PLUGIN = 'dsh-dcp';

/** `source.plugin` of every compaction checkpoint, DCP blocks included. */
export const COMPACT_PLUGIN = 'compact';

/** `source.kind` of both plugin sources. */
export const PLUGIN_SOURCE_KIND = 'plugin';

/** The source of DCP plugin messages (markers, purge checkpoints; the runtime adds `commandId` to triggers and controls). */
export const DCP_MESSAGE_SOURCE: Readonly<{ kind: 'plugin'; plugin: 'dsh-dcp' }> = Object.freeze({ kind: 'plugin', plugin: 'dsh-dcp' });

/** The first line of every checkpoint text (§6.2). */
export const CHECKPOINT_HEADER = '[Compressed conversation section]';

/** The opening of the trailing block id tag (`<dcp-message-id>bN</dcp-message-id>`). */
export const BLOCK_ID_OPEN = '<dcp-message-id>';

/** The closing of the trailing block id tag. */
export const BLOCK_ID_CLOSE = '</dcp-message-id>';

/** The title line of the prior-blocks appendix section (§7.8 item 3), without its leading `\n`. */
export const PRIOR_BLOCKS_TITLE = 'Included prior blocks:';

/** The closing delimiter of one prior block (`<dcp-prior ref="bN">` … `</dcp-prior>`). */
export const PRIOR_CLOSE = '</dcp-prior>';

/** The prefix of the inline-cleanup marker `[stored in bN]`. */
export const STORED_IN_PREFIX = '[stored in ';

/** The first line of a purge checkpoint (§8.4). */
export const PURGE_HEADER = '[errored tool unit removed]';

/** The error line used when an errored result has no text (§8.4). */
export const PURGE_NO_ERROR_TEXT = 'tool failed (no error text)';

/** The first line of a manual trigger message (§11.2). */
export const MANUAL_TRIGGER_PREFIX = '<compress triggered manually>';

/** The prefix of a nudge line (§9). */
export const NUDGE_PREFIX = 'DCP compression recommended:';

/** The opening of a control message (§11.5). */
export const CONTROL_OPEN = '<dcp-control>';

/** The closing of a control message. */
export const CONTROL_CLOSE = '</dcp-control>';

/** The model tool's name. */
export const COMPRESS_TOOL_NAME = 'compress';

/** The main command's name. */
export const DCP_COMMAND_NAME = 'dcp';

/** The shortcut command's name (`/dcp-compress [focus]` ≡ `/dcp compress [focus]`). */
export const DCP_COMPRESS_COMMAND_NAME = 'dcp-compress';

/** The argument hint of `/dcp` (§11.1). */
export const DCP_COMMAND_HINT = 'help|context|stats|manual|compress|sweep|show|decompress|recompress';

/** The `dcp` command's one-line summary, for hosts that list commands (dsh's command registry requires one). */
export const DCP_COMMAND_DESCRIPTION = 'Dynamic context pruning: context, statistics, manual mode, sweep and compressed blocks';

/** The `dcp-compress` command's one-line summary. */
export const DCP_COMPRESS_COMMAND_DESCRIPTION = 'Ask the model to compress closed ranges of this conversation now';

/** The system-prompt section name (§10). */
export const GUIDANCE_SECTION_NAME = 'dcp:guidance';

/** The system-prompt section order (§10). */
export const GUIDANCE_SECTION_ORDER = 190;

/** `authorMessageId` of blocks made by commands (expansion, recompression). */
export const COMMAND_AUTHOR_MESSAGE_ID = 'dcp-command';

/** `authorMessageId` when the compress call's assistant message is not found (§7.3 step 6). */
export const UNKNOWN_AUTHOR_MESSAGE_ID = 'unknown';

/** `topic` of expansion blocks (§6.3). */
export const EXPANSION_TOPIC = 'semantic expansion';

/** `topic` of recompression blocks (§6.3). */
export const RECOMPRESSION_TOPIC = 'recompression';

/** The only metadata mode this version writes. */
export const RANGE_MODE = 'range';

/** The version number of DCP metadata this build reads and writes. */
export const DCP_META_VERSION = 1;

/** Lenient marker regex: finds a boundary tag anywhere in a line (reads dsh-dcp logs). */
export const MARKER_LENIENT_RE = /<dcp-boundary ref="(m\d+)"[^>]*\/>/;

/** Strict marker regex: the exact line this build writes. */
export const MARKER_STRICT_RE = /^<dcp-boundary ref="(m\d+)" turn="(\d+)" step="(\d+)" \/>$/;

/** Alias line regex (applied after trimming). */
export const ALIAS_RE = /^alias (m\d+)=s(\d+)$/;

/** Block ref regex. */
export const BLOCK_REF_RE = /^b[1-9]\d*$/;

/** Marker ref regex. */
export const MARKER_REF_RE = /^m\d+$/;

/** The valid control message text (§11.5). */
export const CONTROL_MESSAGE_RE = /^<dcp-control>(sweep|expand b[1-9]\d*|recompress b[1-9]\d*)<\/dcp-control>$/;

/** Minimum digits of a marker ref number (`m0001`); longer numbers are never truncated. */
export const MARKER_REF_MIN_DIGITS = 4;

/** Maximum length of a tool `topic` (§7.2, §6.3). */
export const TOPIC_MAX_CHARS = 200;

/** Maximum length of a ref argument (§7.2) and of `startRef` in metadata (§6.3). */
export const REF_MAX_CHARS = 32;

/** Maximum length of a summary argument (§7.2). */
export const SUMMARY_MAX_CHARS = 8000;

/** The host-facing busy text (§12.2, §13.2). */
export const BUSY_TEXT = 'compaction is busy: an unclosed bracket holds the session lock';

/** The skip reason of entries after a failed bracket close (§7.11 rule 3). */
export const BATCH_STOPPED_REASON = 'batch stopped after a host error';

/** Farthest a nearest-cuts scan goes from its anchor, per side (§5.4). */
export const NEAREST_CUT_SCAN_LIMIT = 512;

/** `<dcp-boundary ref="<ref>" turn="<turn>" step="<step>" />` — the marker line (§2, §4.2). */
export function markerLine(ref: string, turn: number, step: number): string {
  return `<dcp-boundary ref="${ref}" turn="${turn}" step="${step}" />`;
}

/** `alias <ref>=s<seq>` — one alias line (§2, §4.5). */
export function aliasLine(ref: string, seq: number): string {
  return `alias ${ref}=s${seq}`;
}

/** `<dcp-message-id><ref></dcp-message-id>` — the block id tag. */
export function blockIdTag(ref: string): string {
  return `${BLOCK_ID_OPEN}${ref}${BLOCK_ID_CLOSE}`;
}

/** `<dcp-prior ref="<ref>">` — the opening delimiter of one prior block. */
export function priorOpenTag(ref: string): string {
  return `<dcp-prior ref="${ref}">`;
}

/** `[stored in <ref>]` — the inline-cleanup marker. */
export function storedInMarker(ref: string): string {
  return `${STORED_IN_PREFIX}${ref}]`;
}

/** `[duplicate <tool> output removed; a newer identical call supersedes it]` — the dedup replacement text. */
export function dedupText(toolName: string): string {
  return `[duplicate ${toolName} output removed; a newer identical call supersedes it]`;
}

/** `[Expanded block <ref>]` — the expansion header. */
export function expansionHeader(ref: string): string {
  return `[Expanded block ${ref}]`;
}

/** `<dcp-control><body></dcp-control>` — a control message text. */
export function controlText(body: string): string {
  return `${CONTROL_OPEN}${body}${CONTROL_CLOSE}`;
}

/** `dcp-<callId>-<inputIndex>` — the compactionId of a compress range (§7.11 rule 4). */
export function compressCompactionId(callId: string, inputIndex: number): string {
  return `dcp-${callId}-${inputIndex}`;
}

/**
 * The compactionId of a compress range when `dcp-<callId>-<inputIndex>` already opened a bracket in the log
 * (a provider that reuses call ids): `-<bK>` appended with the new block ref (§7.11 rule 4).
 */
export function disambiguatedCompressCompactionId(callId: string, inputIndex: number, blockRef: string): string {
  return `${compressCompactionId(callId, inputIndex)}-${blockRef}`;
}

/** `dcp-expand-<bOld>-<bNew>` — the compactionId of an expansion (§12.2). */
export function expandCompactionId(oldRef: string, newRef: string): string {
  return `dcp-expand-${oldRef}-${newRef}`;
}

/** `dcp-recompress-<bOld>-<bNew>` — the compactionId of a recompression (§12.3). */
export function recompressCompactionId(oldRef: string, newRef: string): string {
  return `dcp-recompress-${oldRef}-${newRef}`;
}

/** `dcp-expansion-<bNew>` — `compressCallId` of an expansion block (§6.3). */
export function expansionCallId(newRef: string): string {
  return `dcp-expansion-${newRef}`;
}

/** `dcp-recompress-<bNew>` — `compressCallId` of a recompression block (§6.3). */
export function recompressCallId(newRef: string): string {
  return `dcp-recompress-${newRef}`;
}
