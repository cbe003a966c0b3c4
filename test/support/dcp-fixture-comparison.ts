/**
 * The comparison of a DCP run with what dsh + dsh-dcp recorded for the same scripted conversation
 * (`test/fixtures/dcp-dsh/`, DCP.md §20), shared by every side that runs the scenarios: `script run` on the stand-in
 * host (`test/main/engine/dcp/dsh-fixture-comparison.test.ts`) and `sessionctx/dsh-dcp` mounted in real dsh hosts
 * (`test/dsh-host/dcp-fixture-scenarios.test.mts`, which imports the compiled module from `dist/test/support/`), so
 * every run is held to the same normalisation and the same allow-list.
 *
 * - **request by request**: every model request, its messages, its system text and its tools, byte for byte;
 * - **record by record**: every record of the log — turn and step records, prompts, markers, triggers, checkpoints,
 *   `tool/call`, `tool/result`, `assistant/message` (usage fields included), `request/header`, `command/run`,
 *   `command/done`, `compaction/start|summary|end|prune` — as JSON with key order.
 *
 * Set aside: ids (mapped to `<idN>` by first appearance), times, and seq offsets (a seq a record refers to — a
 * `surfaceOp` range, `shadowedRange`, `shadowedSeqs`, a leaf number in a transcript — becomes the position of the
 * referenced record among the compared ones); dsh's `agent/inbox/spliced` and `request/context` records (the fixture
 * README; `request/context` is checked on its own by the callers), and `assistant/chunk`, the scripted model's stream
 * (HOST.md §12). Everything else must match byte for byte, except what the explicit, commented allow-list below
 * rewrites — on both sides alike, to the same placeholder, so that the rest of a record or message is still compared.
 * Each entry cites the DCP.md §20 row (and the section) that documents the difference.
 */

/** The scenarios of `test/fixtures/dcp-dsh/`, in the order the tests run them. */
export const DCP_FIXTURE_SCENARIOS = [
  's1-markers',
  's2-compress',
  's3-errors',
  's4-dedup',
  's7-nudge',
  's8-nudge-nowindow',
  's9-manual',
  's10-trigger-sweep',
  's11-expand',
] as const;

type Side = 'dsh' | 'ours';
type Json = Record<string, unknown>;

/** One record of a log as the comparison reads it (seq, type, data and the surface operation). */
export interface LoggedEvent {
  readonly type: string;
  readonly seq: number;
  readonly data: Json;
  readonly surfaceOp?: unknown;
}

/** A tool as a model request lists it. */
export interface ModelTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: unknown;
}

/** One model request as the comparison reads it: its messages, its system text and its tools. */
export interface ModelRequestRecord {
  readonly messages: readonly Json[];
  readonly system: string;
  readonly tools: readonly ModelTool[];
}

/** Records only dsh writes (fixture README), and the scripted model's stream (HOST.md §12): not compared in place. */
const NOT_COMPARED = new Set(['agent/inbox/spliced', 'request/context', 'assistant/chunk']);

/**
 * What dsh's fixture generator put before the DCP section of the system text: dsh's own opening line and the
 * generator's agent instructions. Neither is in the scenario (its format has no system prompt), so `script run` cannot
 * write them (entry `generator-setup`, DCP.md §20 #17).
 */
const GENERATOR_PREAMBLE = 'You are an AI agent powered by DeepSeek Harness.\n\nYou are a deterministic DCP test agent.\n\n';

/** The headings the two DCP system sections start with (DCP.md §20 #1, §10). */
const GUIDANCE_HEADING: Record<Side, string> = { dsh: '## Dynamic Context Pruning (DCP)\n', ours: '## Context pruning (DCP)\n' };

/** The manual line of our markers (DCP.md §4.6). */
const MANUAL_LINE = /\nDCP manual mode: [^\n]*/g;

/** What the entries need to know about a scenario's two runs, computed from both logs before normalising. */
interface Facts {
  /** Every compress call id. */
  readonly compressCalls: ReadonlySet<string>;
  /** Compress calls whose outcome (error or not) differs between the logs (entry `diverged-compress-outcomes`). */
  readonly diverged: ReadonlySet<string>;
  /** Compress calls after the first diverged one: block numbers differ by one from there on. */
  readonly after: ReadonlySet<string>;
  /** Command ids (per side) of the commands our run refused at command time (entry `refused-at-command-time`). */
  readonly refusedCommandIds: ReadonlySet<string>;
  /** Our compactions whose range holds a marker carrying our manual line (entry `manual-line`). */
  readonly manualLineCompactions: ReadonlySet<string>;
  /** Tool calls whose result a strategy (dedup) replaced, with the turns it happened in on either side (`dedup-timing`). */
  readonly strategyPruned: ReadonlyMap<string, ReadonlySet<number>>;
  /** The turn of each model request (the turn of the assistant message it produced). */
  readonly requestTurns: readonly number[];
}

const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function textsOf(message: Json): string[] {
  const content = message['content'];
  return Array.isArray(content)
    ? content.filter((block): block is Json => isJson(block) && block['type'] === 'text').map((block) => String(block['text']))
    : [];
}

function mapTexts(message: Json, map: (text: string) => string): Json {
  const content = message['content'];
  if (!Array.isArray(content)) return message;
  return {
    ...message,
    content: content.map((block: unknown) =>
      isJson(block) && block['type'] === 'text' ? { ...block, text: map(String(block['text'])) } : block,
    ),
  };
}

const sourceOf = (message: Json): Json => (isJson(message['source']) ? message['source'] : {});
const isDcpPluginMessage = (message: Json): boolean => sourceOf(message)['plugin'] === 'dsh-dcp';
const isMarker = (message: Json): boolean => isDcpPluginMessage(message) && (textsOf(message)[0] ?? '').startsWith('<dcp-boundary');
const dcpMetaOf = (message: Json): Json | undefined => (isJson(sourceOf(message)['dcp']) ? (sourceOf(message)['dcp'] as Json) : undefined);
const compactionOf = (message: Json): string | undefined =>
  typeof sourceOf(message)['compactionId'] === 'string' ? String(sourceOf(message)['compactionId']) : undefined;

/** The call a compaction id belongs to: `dcp-<callId>-<n>` (DCP.md §6.1), else `undefined`. */
function callOfCompaction(compactionId: string | undefined, facts: Facts): string | undefined {
  if (compactionId === undefined) return undefined;
  for (const callId of facts.compressCalls) if (compactionId.startsWith(`dcp-${callId}-`)) return callId;
  return undefined;
}

/** The tool-call ids of an assistant message. */
function callsOf(message: Json): string[] {
  const content = message['content'];
  return Array.isArray(content)
    ? content.filter((block): block is Json => isJson(block) && block['type'] === 'tool-call').map((block) => String(block['id']))
    : [];
}

/** The call a tool-result message answers. */
const resultCallOf = (message: Json): string | undefined =>
  sourceOf(message)['kind'] === 'tool' ? String(sourceOf(message)['callId']) : undefined;

/** Leaf tool content (DCP.md §20 #14, §12.1): ours shows tool calls and results; dsh-dcp a tool result as an empty user leaf. */
function dshLeafLayout(text: string): string {
  return text
    .replace(/\n\[tool call [^\n]*/g, '')
    .replace(
      /--- leaf (\d+) \(tool\) ---\n\[tool (?:result|error) [\s\S]*?(?=\n\n--- leaf |\n\nNote: |\n\n<dcp-message-id>|$)/g,
      '--- leaf $1 (user) ---\n',
    );
}

/**
 * The message-level allow-list: applied to every message of every request and to the message of every record.
 * Each entry returns the message rewritten (or as it is).
 */
const MESSAGE_ALLOW_LIST: ReadonlyArray<{ readonly name: string; readonly apply: (message: Json, side: Side, facts: Facts) => Json }> = [
  {
    // §20 #3, #4 (§7.13, §5.4): the compress result text (`Range status:` block, nearest cuts) is the contract's.
    name: 'compress-result-text',
    apply: (message, _side, facts) => {
      const callId = resultCallOf(message);
      if (callId === undefined || !facts.compressCalls.has(callId)) return message;
      const content = message['content'] as Json[];
      return { ...message, content: content.map((block) => ({ ...block, content: [{ type: 'text', text: '<compress result>' }] })) };
    },
  },
  {
    // §20 #11 (§9): the pressure percentage counts the seed's longer guidance and schema; where it fires must match.
    name: 'nudge-pressure-percent',
    apply: (message) =>
      isMarker(message)
        ? mapTexts(message, (text) => text.replace(/context is at \d+% of the model window/, 'context is at <n>% of the model window'))
        : message,
  },
  {
    // §20 #10 (§4.6): our first-pre-step markers carry the manual line while manual mode differs from its default.
    name: 'manual-line',
    apply: (message, side) => {
      if (side !== 'ours') return message;
      const strip = (text: string): string => text.replace(MANUAL_LINE, '');
      // A transcript lists markers as leaves (§12.1), manual line included.
      return isMarker(message) || dcpMetaOf(message)?.['kind'] === 'expansion' ? mapTexts(message, strip) : message;
    },
  },
  {
    // §20 #16 (§11.2): the trigger's `source` carries the command's `commandId`, the runtime's stamp.
    name: 'trigger-command-id',
    apply: (message, side) => {
      if (side !== 'ours' || !isDcpPluginMessage(message) || !(textsOf(message)[0] ?? '').startsWith('<compress triggered manually>'))
        return message;
      const { commandId: _stamp, ...source } = sourceOf(message);
      return { ...message, source };
    },
  },
  {
    // §20 #12 (§12.2): our expansion ends with its own `<dcp-message-id>` and our compaction ids name the new block too
    // (dsh-dcp's repeat); §20 #14 (§12.1): our transcript shows tool calls and results, dsh-dcp's drops them.
    name: 'expansion-text',
    apply: (message, side) => {
      if (dcpMetaOf(message)?.['kind'] !== 'expansion') return message;
      const text =
        side === 'ours'
          ? (s: string): string => dshLeafLayout(s.replace(/\n\n<dcp-message-id>b\d+<\/dcp-message-id>$/, ''))
          : (s: string): string => s;
      const source = { ...sourceOf(message), compactionId: String(compactionOf(message)).replace(/^(dcp-expand-b\d+)-b\d+$/, '$1') };
      return { ...mapTexts(message, text), source };
    },
  },
  {
    // §20 #15 (§12.3, §6.3): a recompression's text (ours extracts the body; dsh-dcp wraps the whole old checkpoint)
    // and its `startRef`/`endRef`/`compressCallId` differ; §12.2: the compaction id names the new block on our side.
    name: 'recompression',
    apply: (message) => {
      const meta = dcpMetaOf(message);
      if (meta === undefined || meta['recompressedFrom'] === undefined) return message;
      const { startRef: _start, endRef: _end, compressCallId: _call, ...rest } = meta;
      const source = {
        ...sourceOf(message),
        compactionId: String(compactionOf(message)).replace(/^(dcp-recompress-b\d+)-b\d+$/, '$1'),
        dcp: rest,
      };
      return { ...mapTexts(message, () => '<recompressed text>'), source };
    },
  },
  {
    // §20 #5, #9 (§7.11, §7.14): after a compress call that committed on one side only, every later block is
    // numbered one apart: `[stored in bN]`, `<dcp-message-id>bN` and `blockRef` of later calls' blocks are masked.
    name: 'diverged-compress-outcomes',
    apply: (message, _side, facts) => {
      const later =
        callsOf(message).some((id) => facts.after.has(id)) ||
        (callOfCompaction(compactionOf(message), facts) !== undefined &&
          facts.after.has(callOfCompaction(compactionOf(message), facts) as string));
      if (!later) return message;
      const masked = maskBlockNumbers(message);
      const meta = dcpMetaOf(masked);
      if (meta === undefined) return masked;
      return { ...masked, source: { ...sourceOf(masked), dcp: { ...meta, blockRef: 'b<n>' } } };
    },
  },
];

function maskBlockNumbers(message: Json): Json {
  const mask = (text: string): string =>
    text
      .replace(/\[stored in b\d+\]/g, '[stored in b<n>]')
      .replace(/<dcp-message-id>b\d+<\/dcp-message-id>/g, '<dcp-message-id>b<n></dcp-message-id>');
  const content = message['content'];
  if (!Array.isArray(content)) return message;
  return {
    ...message,
    content: content.map((block: unknown) => {
      if (!isJson(block)) return block;
      if (block['type'] === 'text') return { ...block, text: mask(String(block['text'])) };
      if (block['type'] === 'tool-call' && typeof block['arguments'] === 'string') return { ...block, arguments: mask(block['arguments']) };
      return block;
    }),
  };
}

function applyMessageAllowList(message: Json, side: Side, facts: Facts): Json {
  return MESSAGE_ALLOW_LIST.reduce((current, entry) => entry.apply(current, side, facts), message);
}

/** The message a record carries, and how to put a rewritten one back. */
function messageSlot(event: LoggedEvent): { message: Json; put: (message: Json) => LoggedEvent } | undefined {
  if (event.type === 'user/message') return { message: event.data, put: (message) => ({ ...event, data: message }) };
  if ((event.type === 'assistant/message' || event.type === 'tool/result') && isJson(event.data['message'])) {
    return { message: event.data['message'], put: (message) => ({ ...event, data: { ...event.data, message } }) };
  }
  return undefined;
}

/** The compaction id a compaction record or a checkpoint belongs to. */
function recordCompaction(event: LoggedEvent): string | undefined {
  if (event.type.startsWith('compaction/') && typeof event.data['compactionId'] === 'string') return event.data['compactionId'];
  if (event.type === 'user/message') return compactionOf(event.data);
  return undefined;
}

/**
 * The record-level allow-list, applied after the message-level one. An entry returns the record rewritten, or
 * `undefined` to set it aside on that side (only where the other side has no counterpart).
 */
const RECORD_ALLOW_LIST: ReadonlyArray<{
  readonly name: string;
  readonly apply: (event: LoggedEvent, side: Side, facts: Facts) => LoggedEvent | undefined;
}> = [
  {
    // §20 #20 (HOST.md §12): usage is the scripted model's (dsh's fixture model reports a constant one, ours estimates it): the
    // fields and their order are compared, not the values.
    name: 'scripted-model-stream',
    apply: (event) => {
      if (event.type !== 'assistant/message' || !isJson(event.data['usage'])) return event;
      return { ...event, data: { ...event.data, usage: Object.fromEntries(Object.keys(event.data['usage']).map((key) => [key, '<n>'])) } };
    },
  },
  {
    // §20 #17: the generator's preamble and its canned tools' parameter schemas are not in the scenario;
    // §20 #1 (§10): the DCP system section is the seed's; §20 #2 (§7.2): the `compress` description and schema too.
    name: 'generator-setup, guidance, compress-schema',
    apply: (event, side) => {
      if (event.type !== 'request/header' || !isJson(event.data['header'])) return event;
      const header = event.data['header'];
      return {
        ...event,
        data: {
          ...event.data,
          header: { ...header, system: maskSystem(String(header['system']), side), tools: maskTools(header['tools'] as ModelTool[]) },
        },
      };
    },
  },
  {
    // §20 #5, #9 (§7.11, §7.14): a compress call that commits on one side only (s3's overlapping pair commits its first
    // range here; s9's compress under manual mode is refused here): its result, its compaction records, its
    // checkpoint and its inline-cleanup pair exist (or read alike) on one side only and are set aside. The token count
    // of a later call's range differs with what the diverged call left in it.
    name: 'diverged-compress-outcomes',
    apply: (event, _side, facts) => {
      const slot = messageSlot(event);
      const result = slot === undefined ? undefined : resultCallOf(slot.message);
      if (event.type === 'tool/result' && result !== undefined && facts.diverged.has(result)) return undefined;
      if (
        event.type === 'assistant/message' &&
        typeof event.surfaceOp === 'object' &&
        slot !== undefined &&
        callsOf(slot.message).some((id) => facts.diverged.has(id))
      )
        return undefined;
      const call = callOfCompaction(recordCompaction(event), facts);
      if (call !== undefined && facts.diverged.has(call)) return undefined;
      if (call !== undefined && facts.after.has(call) && event.type === 'compaction/summary') {
        const summary = (event.data['summary'] as Json[]).flatMap((block) => maskBlockNumbers({ content: [block] })['content'] as Json[]);
        return { ...event, data: { ...event.data, summary, shadowedTokenCount: '<n>' } };
      }
      return event;
    },
  },
  {
    // §20 #10 (§4.6): a range holding a marker with our manual line counts its tokens too.
    name: 'manual-line',
    apply: (event, _side, facts) => {
      if (event.type !== 'compaction/summary' || !facts.manualLineCompactions.has(String(event.data['compactionId']))) return event;
      return { ...event, data: { ...event.data, shadowedTokenCount: '<n>' } };
    },
  },
  {
    // §20 #12 (§12.2), #14 (§12.1), #15 (§12.3): expansion and recompression compaction records, as for their checkpoints: the
    // compaction id names the new block on our side; the transcript and the recompressed text differ as documented,
    // and so does the token count of the expansion a recompression shadows (ours carries the tool lines, §12.1).
    name: 'expansion-text, recompression',
    apply: (event, side) => {
      if (!event.type.startsWith('compaction/')) return event;
      const id = String(event.data['compactionId']);
      const expand = /^dcp-expand-/.test(id);
      const recompress = /^dcp-recompress-/.test(id);
      if (!expand && !recompress) return event;
      const data: Json = { ...event.data, compactionId: id.replace(/^(dcp-(?:expand|recompress)-b\d+)-b\d+$/, '$1') };
      if (event.type === 'compaction/summary') {
        const blocks = event.data['summary'] as Json[];
        data['summary'] = recompress
          ? blocks.map((block) => ({ ...block, text: '<recompressed text>' }))
          : blocks.map((block) =>
              side === 'ours'
                ? {
                    ...block,
                    text: dshLeafLayout(
                      String(block['text'])
                        .replace(MANUAL_LINE, '')
                        .replace(/\n\n<dcp-message-id>b\d+<\/dcp-message-id>$/, ''),
                    ),
                  }
                : block,
            );
        if (recompress) data['shadowedTokenCount'] = '<n>';
      }
      return { ...event, data };
    },
  },
  {
    // §20 #18 (§11.3, §15.2): the `/dcp` output blocks (help, context, stats, show) are the seed's; the leaf transcript
    // `/dcp decompress` adds after the show block is compared (in dsh-dcp's layout, #14's tool lines aside).
    name: 'command-output-blocks',
    apply: (event, side) => {
      if (event.type !== 'command/done') return event;
      const text = String(event.data['text']);
      if (/^(DCP commands:|DCP context|DCP statistics)/.test(text)) return { ...event, data: { ...event.data, text: '<output block>' } };
      if (!text.startsWith('Block b')) return event;
      const leaves = text.indexOf('\n\nOriginal leaf nodes (');
      if (leaves === -1) return { ...event, data: { ...event.data, text: '<show block>' } };
      const rest = text.slice(leaves);
      return {
        ...event,
        data: { ...event.data, text: `<show block>${side === 'ours' ? dshLeafLayout(rest.replace(MANUAL_LINE, '')) : rest}` },
      };
    },
  },
  {
    // §20 #19 (§11.2, §12.2, §12.3): a command that cannot succeed is refused when it runs (kind error); dsh-dcp
    // answers "scheduled" and fails inside a control turn (that turn is set aside before, see below).
    name: 'refused-at-command-time',
    apply: (event, _side, facts) =>
      event.type === 'command/done' && facts.refusedCommandIds.has(String(event.data['commandId'])) ? undefined : event,
  },
];

function maskSystem(system: string, side: Side): string {
  const section = side === 'dsh' && system.startsWith(GENERATOR_PREAMBLE) ? system.slice(GENERATOR_PREAMBLE.length) : system;
  // Only the DCP section, whole: anything else in the system text would stay and be compared.
  return section.startsWith(GUIDANCE_HEADING[side]) ? '<dcp guidance>' : section;
}

function maskTools(tools: readonly ModelTool[]): ModelTool[] {
  return tools.map((tool) =>
    tool.name === 'compress'
      ? { ...tool, description: '<compress description>', parameters: '<compress schema>' }
      : { ...tool, parameters: '<canned parameters>' },
  );
}

/**
 * §20 #19: on the dsh side, the empty control turn (`turn/start`, `command/done`, `turn/end`, no step) that follows the
 * `command/run` of a command our run refused is set aside (its `command/done` goes by `refused-at-command-time`).
 */
function withoutRefusedControlTurns(events: readonly LoggedEvent[], refusedIds: ReadonlySet<string>): LoggedEvent[] {
  const dropped = new Set<number>();
  events.forEach((event, at) => {
    if (event.type !== 'command/run' || !refusedIds.has(String(event.data['commandId']))) return;
    const next = events[at + 1];
    if (next?.type !== 'turn/start') return;
    const end = events.findIndex((later, index) => index > at + 1 && (later.type === 'turn/end' || later.type === 'step/start'));
    if (end !== -1 && events[end]?.type === 'turn/end') dropped.add(at + 1).add(end);
  });
  return events.filter((_, at) => !dropped.has(at));
}

/** The `isError` of each compress call's appended result, in log order. */
function compressOutcomes(events: readonly LoggedEvent[], compressCalls: ReadonlySet<string>): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const event of events) {
    if (event.type !== 'tool/result' || event.surfaceOp !== 'append') continue;
    const message = event.data['message'] as Json;
    const callId = resultCallOf(message) ?? '';
    if (compressCalls.has(callId)) out.set(callId, (message['content'] as Json[])[0]?.['isError'] === true);
  }
  return out;
}

/** A strategy prune: a `compaction/prune` immediately followed by a `tool/result` replacement (DCP.md §6.5), and its turn. */
interface StrategyPrune {
  readonly prune: LoggedEvent;
  readonly replace: LoggedEvent;
  /** The turn the prune was written in. */
  readonly turn: number;
}

function strategyPairs(events: readonly LoggedEvent[]): StrategyPrune[] {
  const pairs: StrategyPrune[] = [];
  let turn = 0;
  events.forEach((event, at) => {
    if (event.type === 'turn/start') turn = Number(event.data['turn']);
    const next = events[at + 1];
    if (event.type === 'compaction/prune' && next?.type === 'tool/result' && typeof next.surfaceOp === 'object')
      pairs.push({ prune: event, replace: next, turn });
  });
  return pairs;
}

function computeFacts(ours: readonly LoggedEvent[], dsh: readonly LoggedEvent[], refusedOrdinals: ReadonlySet<number>): Facts {
  const compressCalls = new Set(
    [...ours, ...dsh]
      .filter((event) => event.type === 'tool/call' && event.data['name'] === 'compress')
      .map((event) => String(event.data['callId'])),
  );
  const mine = compressOutcomes(ours, compressCalls);
  const theirs = compressOutcomes(dsh, compressCalls);
  const diverged = new Set<string>();
  const after = new Set<string>();
  for (const [callId, isError] of mine) {
    if (diverged.size > 0) after.add(callId);
    if (theirs.get(callId) !== isError) diverged.add(callId);
  }
  const refusedCommandIds = new Set<string>();
  for (const log of [ours, dsh]) {
    log
      .filter((event) => event.type === 'command/run')
      .forEach((event, ordinal) => {
        if (refusedOrdinals.has(ordinal)) refusedCommandIds.add(String(event.data['commandId']));
      });
  }
  const bySeq = new Map(ours.map((event) => [event.seq, event]));
  const manualLineCompactions = new Set<string>();
  for (const event of ours) {
    if (event.type !== 'compaction/summary') continue;
    const seqs = event.data['shadowedSeqs'] as number[];
    const hasManualLine = seqs.some((seq) => {
      const shadowed = bySeq.get(seq);
      return (
        shadowed?.type === 'user/message' && isMarker(shadowed.data) && (textsOf(shadowed.data)[0] ?? '').includes('\nDCP manual mode:')
      );
    });
    if (hasManualLine) manualLineCompactions.add(String(event.data['compactionId']));
  }
  const strategyPruned = new Map<string, Set<number>>();
  for (const { replace, turn } of [...strategyPairs(ours), ...strategyPairs(dsh)]) {
    const callId = resultCallOf(replace.data['message'] as Json) ?? '';
    strategyPruned.set(callId, (strategyPruned.get(callId) ?? new Set<number>()).add(turn));
  }
  const requestTurns = ours
    .filter((event) => event.type === 'assistant/message' && event.surfaceOp === 'append')
    .map((event) => Number(event.data['turn']));
  return { compressCalls, diverged, after, refusedCommandIds, manualLineCompactions, strategyPruned, requestTurns };
}

/** Ids by first appearance (a map shared by one side's records, or one request). */
function idNormaliser(): (value: unknown) => unknown {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const ids = new Map<string, string>();
  const walk = (value: unknown, key?: string): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item));
    if (isJson(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    if (typeof value === 'string' && (key === 'id' || key === 'commandId' || key === 'authorMessageId' || UUID.test(value))) {
      if (!ids.has(value)) ids.set(value, `<id${ids.size}>`);
      return ids.get(value);
    }
    return value;
  };
  return (value) => walk(value);
}

/**
 * One side's log, normalised: the compared records in order, and the strategy prunes apart (entry `dedup-timing`,
 * §20 #6, §8.1 rule 5, §8.3: our automatic dedup runs at a turn's first pre-step on what lies outside the retention
 * window; dsh-dcp's prunes the same results at other points of the log — s4: ours in turn 3, dsh-dcp's in turn 4. The
 * prunes are compared as a list, in order, referring to the same records; a sweep's must run in the same turn).
 */
function normaliseLog(events: readonly LoggedEvent[], side: Side, facts: Facts): { records: string[]; strategyPrunes: string[] } {
  const kept = withoutRefusedControlTurns(
    events.filter((event) => !NOT_COMPARED.has(event.type)),
    side === 'dsh' ? facts.refusedCommandIds : new Set(),
  );
  const pairs = strategyPairs(kept);
  const apart = new Set(pairs.flatMap(({ prune, replace }) => [prune, replace]));
  const rewrite = (event: LoggedEvent): LoggedEvent | undefined => {
    const slot = messageSlot(event);
    let current: LoggedEvent | undefined = slot === undefined ? event : slot.put(applyMessageAllowList(slot.message, side, facts));
    for (const entry of RECORD_ALLOW_LIST) {
      if (current === undefined) break;
      current = entry.apply(current, side, facts);
    }
    return current;
  };
  // The `compaction/prune` of a diverged call's inline cleanup goes with its replacement (`diverged-compress-outcomes`).
  const divergedCleanups = new Set(
    kept.filter((event, at) => {
      const next = kept[at + 1];
      return (
        event.type === 'compaction/prune' &&
        next?.type === 'assistant/message' &&
        typeof next.surfaceOp === 'object' &&
        callsOf(next.data['message'] as Json).some((id) => facts.diverged.has(id))
      );
    }),
  );
  const main = kept
    .filter((event) => !apart.has(event) && !divergedCleanups.has(event))
    .map(rewrite)
    .filter((event): event is LoggedEvent => event !== undefined);
  const position = new Map(main.map((event, index) => [event.seq, index]));
  // A set-aside one-node replacement (a diverged call's cleanup copy) stands for the record it replaced: a later
  // range over it refers to that message on either side.
  for (const event of kept) {
    if (position.has(event.seq) || !isJson(event.surfaceOp) || event.surfaceOp['start'] !== event.surfaceOp['end']) continue;
    const original = position.get(Number(event.surfaceOp['start']));
    if (original !== undefined) position.set(event.seq, original);
  }
  const at = (seq: unknown): unknown => (typeof seq === 'number' ? (position.get(seq) ?? '<uncompared>') : seq);
  const ids = idNormaliser();
  const render = (event: LoggedEvent): string => {
    const data: Json = { ...event.data };
    if (isJson(data['shadowedRange']))
      data['shadowedRange'] = { start: at(data['shadowedRange']['start']), end: at(data['shadowedRange']['end']) };
    if (Array.isArray(data['shadowedSeqs'])) data['shadowedSeqs'] = data['shadowedSeqs'].map(at);
    const surfaceOp = isJson(event.surfaceOp)
      ? { ...event.surfaceOp, start: at(event.surfaceOp['start']), end: at(event.surfaceOp['end']) }
      : event.surfaceOp;
    // Leaf numbers in transcripts are seqs too (§12.1).
    const text = JSON.stringify(ids(data)).replace(
      /--- leaf (\d+) \(/g,
      (_match, seq: string) => `--- leaf <${String(at(Number(seq)))}> (`,
    );
    return `{"type":${JSON.stringify(event.type)},"data":${text}${surfaceOp === undefined ? '' : `,"surfaceOp":${JSON.stringify(surfaceOp)}`}}`;
  };
  const records = main.map(render);
  // Each prune with where it ran: an automatic one (a turn with a step) may run in another turn on the other side,
  // a sweep's (its control turn has no step) must run in the same turn.
  const stepped = new Set(kept.filter((event) => event.type === 'step/start').map((event) => Number(event.data['turn'])));
  const when = (turn: number): string => (stepped.has(turn) ? 'automatic' : `sweep in turn ${turn}`);
  const strategyPrunes = pairs.flatMap(({ prune, replace, turn }) =>
    [prune, replace]
      .map(rewrite)
      .filter((event): event is LoggedEvent => event !== undefined)
      .map((event) => `${when(turn)} ${render(event)}`),
  );
  return { records, strategyPrunes };
}

/**
 * One request, normalised, given the other side's messages for the entries that compare the two (a prune that came at
 * other times on the two sides).
 *
 * - `dedup-timing` (§20 #6): in a request of a turn a strategy replaced a tool result in (on either side), a result
 *   replaced before this request on one side only reads as a placeholder on both.
 * - `diverged-compress-outcomes` (§20 #5, #9): from the first request that shows a diverged call's result on, the
 *   earlier turns differ by the range one side committed; the current turn's messages (from its first marker, the one
 *   of `step="1"`) are compared, the diverged call's arguments and result set aside.
 */
function normaliseRequests(
  requests: readonly ModelRequestRecord[],
  other: readonly ModelRequestRecord[],
  side: Side,
  facts: Facts,
): string[][] {
  let divergedFrom = Number.POSITIVE_INFINITY;
  [requests, other].forEach((list) =>
    list.forEach((request, index) => {
      if (request.messages.some((message) => facts.diverged.has(resultCallOf(message) ?? ''))) divergedFrom = Math.min(divergedFrom, index);
    }),
  );
  return requests.map((request, index) => {
    const counterpart = other[index];
    let messages = request.messages.map((message) => applyMessageAllowList(message, side, facts));
    messages = messages.map((message) => {
      const callId = resultCallOf(message);
      const turns = callId === undefined ? undefined : facts.strategyPruned.get(callId);
      const turn = facts.requestTurns[index];
      if (turns === undefined || turn === undefined || !turns.has(turn)) return message;
      const mirror = counterpart?.messages.find((candidate) => resultCallOf(candidate) === callId);
      const replaced = (candidate: Json | undefined): boolean =>
        candidate !== undefined && JSON.stringify(candidate).includes('[duplicate ');
      return replaced(message) !== replaced(mirror) ? { ...message, content: '<pruned on one side only so far>' } : message;
    });
    if (index >= divergedFrom) {
      const start = messages.findLastIndex((message) => isMarker(message) && (textsOf(message)[0] ?? '').includes(' step="1" '));
      messages = messages.slice(Math.max(start, 0)).map((message) => {
        const masked = maskBlockNumbers(message);
        if (callsOf(masked).some((id) => facts.diverged.has(id))) return { ...masked, content: '<diverged compress call>' };
        if (facts.diverged.has(resultCallOf(masked) ?? '')) return { ...masked, content: '<diverged compress result>' };
        return masked;
      });
    }
    const ids = idNormaliser();
    return [
      `system ${JSON.stringify(maskSystem(request.system, side))}`,
      `tools ${JSON.stringify(maskTools(request.tools))}`,
      // Leaf numbers are seqs (§12.1); the record comparison checks which record each names.
      ...messages.map((message) => JSON.stringify(ids(message)).replace(/--- leaf \d+ \(/g, '--- leaf <seq> (')),
    ];
  });
}

/** One side of a comparison: a run's whole log and every model request, in order. */
export interface RecordedRun {
  readonly events: readonly LoggedEvent[];
  readonly requests: readonly ModelRequestRecord[];
}

/** Both sides normalised: equal when the run matches the recording, allow-list aside. */
export interface NormalisedComparison {
  /** Per request, the normalised system text, tools and messages. */
  readonly requests: { readonly ours: readonly string[][]; readonly dsh: readonly string[][] };
  /** The compared records, in order. */
  readonly records: { readonly ours: readonly string[]; readonly dsh: readonly string[] };
  /** The strategy prunes, compared as a list (entry `dedup-timing`). */
  readonly strategyPrunes: { readonly ours: readonly string[]; readonly dsh: readonly string[] };
}

/**
 * Normalises `ours` and the recording `dsh` of one scenario for comparison.
 * @param refusedCommands - the ordinals (among the scenario's command steps) of the `/dcp` commands our run refused
 *   at command time (entry `refused-at-command-time`): every scenario command is registered, so the k-th command step
 *   is the k-th `command/run` of either log.
 */
export function normaliseScenarioRuns(ours: RecordedRun, dsh: RecordedRun, refusedCommands: ReadonlySet<number>): NormalisedComparison {
  const facts = computeFacts(ours.events, dsh.events, refusedCommands);
  const mine = normaliseLog(ours.events, 'ours', facts);
  const theirs = normaliseLog(dsh.events, 'dsh', facts);
  return {
    requests: {
      ours: normaliseRequests(ours.requests, dsh.requests, 'ours', facts),
      dsh: normaliseRequests(dsh.requests, ours.requests, 'dsh', facts),
    },
    records: { ours: mine.records, dsh: theirs.records },
    strategyPrunes: { ours: mine.strategyPrunes, dsh: theirs.strategyPrunes },
  };
}

/**
 * A recording normalised against itself: with nothing diverged and nothing refused, every compared record is kept (in
 * place or among the strategy prunes); entries only rewrite.
 * @returns how many records the comparison reads, and how many the normalisation kept
 */
export function normaliseAgainstItself(events: readonly LoggedEvent[]): {
  readonly compared: number;
  readonly kept: number;
  readonly diverged: number;
} {
  const facts = computeFacts(events, events, new Set());
  const once = normaliseLog(events, 'dsh', facts);
  return {
    compared: events.filter((event) => !NOT_COMPARED.has(event.type)).length,
    kept: once.records.length + once.strategyPrunes.length,
    diverged: facts.diverged.size,
  };
}

/** The `request/context` records of a log, as JSON, in order. */
export function requestContexts(events: readonly LoggedEvent[]): string[] {
  return events.filter((event) => event.type === 'request/context').map((event) => JSON.stringify(event.data));
}
