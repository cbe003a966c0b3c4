/**
 * `sessionctx demo` (what `npm start` runs): writes a realistic demo corpus with this project's
 * own store, then walks through discovery, mentions, a prepared snapshot, a budget truncation,
 * typed errors and a DCP session (marker, dedup, compress, stats), and says where the corpus is so the
 * reader can keep exploring. With `--root DIR` the corpus is written there and kept; the directory must be missing
 * or empty (`DEMO_ROOT_NOT_EMPTY` before anything is written otherwise). Without it the corpus goes to a fresh
 * temporary directory, which is removed at the end — whether the demo succeeded or failed — unless `keep`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asSessionId } from '../../../../protocol/events.js';
import { SessionReferenceError } from '../../../../protocol/reference-errors.js';
import { formatSessionReferenceMention } from '../../../../protocol/uri/mention-formatter.js';
import { parseMessageContent } from '../../../../protocol/uri/mention-parser.js';
import { createEngine } from '../../../engine/assembly/create-engine.js';
import type { LocalSessionEngine } from '../../../engine/assembly/create-engine.js';
import type { SessionReferenceConfigInput } from '../../../engine/reference/reference-config.js';
import { DEMO_CWDS, DEMO_IDS, writeDemoCorpus } from '../../../stand-in/demo/demo-corpus.js';
import { DEMO_DCP_ID, runDemoDcp } from '../../../stand-in/demo/demo-dcp.js';
import { assertEmptyDemoRoot } from '../../../stand-in/demo/demo-root.js';
import { ScenarioRunError } from '../../../stand-in/scenario/scenario-run-error.js';
import type { ReferenceMetadata, ReferenceTarget } from '../../../engine/reference/reference-types.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { writeJson, writeLines } from '../cli-io.js';
import { cliInvocation } from '../invocation.js';

/** Options of the demo. */
export interface DemoCommandOptions {
  /** Where to write the corpus (kept; must be missing or empty); a fresh temporary directory when absent. */
  readonly root?: string;
  readonly json: boolean;
  /**
   * Keep the temporary corpus of a demo without `root` instead of removing it at the end (`--keep`). Without
   * `root` and `keep` nothing of the demo remains. Default `false`; a given `root` is always kept.
   */
  readonly keep?: boolean;
}

/** Where this run writes and whether the corpus outlives it. */
interface DemoPlacement {
  readonly root: string;
  readonly kept: boolean;
}

function heading(io: CliIo, text: string): void {
  writeLines(io, ['', `── ${text} ${'─'.repeat(Math.max(0, 66 - text.length))}`]);
}

function describeReference(reference: ReferenceMetadata): string {
  const kept = `${reference.retainedMessages}/${reference.originalMessages} messages kept`;
  const cut = reference.truncated ? `, ${reference.omittedMessages} dropped, ${reference.omittedBytes} bytes omitted` : ', nothing omitted';
  return `  ${reference.label}: ${kept}${cut}${reference.compacted ? ', compacted' : ''}; captured through seq ${reference.capturedThroughSeq}`;
}

function excerpt(text: string, lines: number): string[] {
  const all = text.split('\n');
  return all.length <= lines ? all : [...all.slice(0, lines), `… (${all.length - lines} more lines)`];
}

/**
 * Runs the demo end to end.
 *
 * @throws DemoRootError `DEMO_ROOT_NOT_EMPTY` / `DEMO_ROOT_NOT_DIRECTORY` for a `root` that is not missing or empty,
 * before anything is written.
 * @throws ScenarioRunError `SCENARIO_RUN_FAILED` if the scripted DCP conversation did not run as scripted.
 */
export async function runDemoCommand(io: CliIo, options: DemoCommandOptions, signal?: AbortSignal): Promise<void> {
  if (options.root !== undefined) {
    await assertEmptyDemoRoot(options.root);
    return runDemo(io, { root: options.root, kept: true }, options.json, signal);
  }
  const directory = await mkdtemp(join(tmpdir(), 'sessionctx-demo-'));
  const kept = options.keep === true;
  try {
    await runDemo(io, { root: join(directory, 'sessions'), kept }, options.json, signal);
  } finally {
    if (!kept) await rm(directory, { recursive: true, force: true, maxRetries: 3 });
  }
  if (!kept && !options.json) writeLines(io, ['', `(removed ${directory}: nothing of this demo remains)`]);
}

/**
 * The engine a user's own commands would open over the demo corpus (the product's path, `createEngine`), with the
 * reference limits `reference` changes. Its caches stay off: nothing of a demo corpus is written to the user's cache
 * directory (titles are read by pool tasks, sources uncached), and it lists once, as one-shot commands do.
 */
function demoEngine(root: string, reference: SessionReferenceConfigInput = {}): Promise<LocalSessionEngine> {
  return createEngine({ root, titles: 'pool', sourceCache: false, corpus: { watch: false }, reference, startSearchWorker: false });
}

/** The walkthrough over a corpus written to `placement.root`. */
async function runDemo(io: CliIo, placement: DemoPlacement, json: boolean, signal: AbortSignal | undefined): Promise<void> {
  const store = await writeDemoCorpus(placement.root);
  const engine = await demoEngine(placement.root);
  try {
    if (!(await walkThrough(io, placement, json, engine, signal))) return;
    await walkThroughDcp(io, store);
    await keepExploring(io, placement, engine, signal);
  } finally {
    await engine.close();
  }
}

/**
 * Sections 1–5 of the walkthrough: discovery, mentions, a prepared snapshot, a budget, typed errors. With `json`
 * only the corpus is printed, and `false` returned (the walkthrough ends there).
 */
async function walkThrough(
  io: CliIo,
  placement: DemoPlacement,
  json: boolean,
  engine: LocalSessionEngine,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const { root, kept } = placement;
  const target: ReferenceTarget = { id: DEMO_IDS.target, session: { header: { cwd: DEMO_CWDS.webshop } } };
  const records = await engine.listSessions(signal);
  if (json) {
    writeJson(io, { root, kept, sessions: records.map((record) => record.header.id) });
    return false;
  }

  writeLines(io, [
    'sessionctx demo',
    `A demo corpus of ${records.length} sessions was written in DeepSeek Harness's own format (zstd) to:`,
    `  ${root}`,
    kept
      ? 'It stays there when the demo ends.'
      : `It is removed when the demo ends (run ${cliInvocation(process.argv[1], io.cwd)} demo --keep, or --root DIR, to keep one).`,
    'We play a new conversation in the webshop project that wants to build on earlier work.',
  ]);

  heading(io, '1. Discovery: which sessions could this message cite?');
  const candidates = await engine.candidates(target, '', undefined, signal);
  writeLines(io, [
    'Ranked like a mention picker: same project first, then sessions without a project, then the rest; newest first.',
    ...candidates.map((candidate) => `  ${candidate.label.padEnd(44)} ${candidate.cwd ?? '(no project)'}`),
  ]);
  const searched = await engine.candidates(target, 'oom', undefined, signal);
  writeLines(io, [`Typing "oom" narrows it to: ${searched.map((candidate) => candidate.label).join(', ')}`]);

  heading(io, '2. Mentions: what a host inserts into the prompt');
  const checkoutMention = formatSessionReferenceMention({ sessionId: DEMO_IDS.checkout, label: 'checkout 409' });
  const discountMention = formatSessionReferenceMention({ sessionId: DEMO_IDS.discounts, label: 'discount codes' });
  writeLines(io, [
    `  ${checkoutMention}`,
    `  ${discountMention}`,
    'The URI is base64url of the JSON-quoted id, so any id round-trips exactly.',
  ]);

  heading(io, '3. A prepared snapshot: what the model receives');
  const message = `Using ${checkoutMention} and ${discountMention}, make checkout reject expired codes with 409 too.`;
  const parsed = parseMessageContent([{ type: 'text', text: message }]);
  const prepared = await engine.prepare(target, parsed.content, parsed.references, signal);
  const context = prepared.additionalContext;
  const promptText = context?.content[0]?.type === 'text' ? String(context.content[0].text) : '';
  const references = context?.source.references ?? [];
  writeLines(io, [
    'The message the model sees:',
    `  ${String((prepared.content[0] as { text?: unknown }).text)}`,
    'Right after it, one read-only snapshot message:',
    ...references.map(describeReference),
    ...excerpt(promptText, 12).map((line) => `  │ ${line.length > 110 ? `${line.slice(0, 109)}…` : line}`),
    'The discount session was compacted: only its checkpoint and what followed are visible, never the shadowed originals.',
  ]);

  heading(io, '4. A budget: long sources are cut, visibly');
  const trainingMention = formatSessionReferenceMention({ sessionId: DEMO_IDS.training, label: 'training OOM' });
  const longParsed = parseMessageContent([{ type: 'text', text: `Summarise ${trainingMention}.` }]);
  const cut = await withDemoEngine(root, { maxReferenceBytes: 800 }, (small) =>
    small.prepare(target, longParsed.content, longParsed.references, signal),
  );
  const cutReferences = cut.additionalContext?.source.references ?? [];
  const cutText = cut.additionalContext?.content[0]?.type === 'text' ? String(cut.additionalContext.content[0].text) : '';
  const notice = /\[… omitted \d+ UTF-8 bytes …\]/u.exec(cutText)?.[0];
  writeLines(io, [
    'With maxReferenceBytes = 800 the 42-turn training session drops its oldest messages first, then shortens the newest one:',
    ...cutReferences.map(describeReference),
    notice !== undefined ? `The shortened text keeps its head and tail and ends with the notice ${notice}` : 'No text needed shortening.',
  ]);

  heading(io, '5. Typed errors: all or nothing');
  const failures: Array<[string, () => Promise<unknown>]> = [
    ['a session that does not exist', () => engine.prepare(target, [], [{ sessionId: 'session-demo-missing' }], signal)],
    ['a malformed mention', async () => parseMessageContent([{ type: 'text', text: 'see @[x](dsh-session:not-canonical)' }])],
    [
      'four sessions in one message',
      () =>
        engine.prepare(
          target,
          [],
          Object.values(DEMO_IDS)
            .slice(0, 4)
            .map((id) => ({ sessionId: id })),
          signal,
        ),
    ],
    [
      'a source that cannot fit 100 bytes',
      () =>
        withDemoEngine(root, { maxReferenceBytes: 100 }, (tiny) => tiny.prepare(target, [], [{ sessionId: DEMO_IDS.checkout }], signal)),
    ],
  ];
  for (const [what, attempt] of failures) {
    const outcome = await attempt().then(
      () => 'succeeded (unexpected)',
      (error: unknown) => (error instanceof SessionReferenceError ? `${error.code}: ${error.message}` : String(error)),
    );
    writeLines(io, [`  ${what}`, `    → ${outcome}`]);
  }
  writeLines(io, ['A failed preparation logs nothing of the step; the error carries the claimed message so a host can re-queue it.']);
  return true;
}

/** `work` on a demo engine with other reference limits, closed afterwards. */
async function withDemoEngine<T>(
  root: string,
  reference: SessionReferenceConfigInput,
  work: (engine: LocalSessionEngine) => Promise<T>,
): Promise<T> {
  const engine = await demoEngine(root, reference);
  try {
    return await work(engine);
  } finally {
    await engine.close();
  }
}

/** Section 6 and the end of the walkthrough: a scripted DCP conversation on the stand-in host, and what to try next. */
async function walkThroughDcp(io: CliIo, store: Awaited<ReturnType<typeof writeDemoCorpus>>): Promise<void> {
  heading(io, '6. DCP: keeping a long conversation small');
  const dcp = await runDemoDcp(store, DEMO_CWDS.webshop);
  // The walkthrough below describes a run that went as scripted; one that did not is reported, not narrated.
  if (dcp.errors.length > 0) throw new ScenarioRunError(dcp);
  const textOf = (event: { data: unknown }): string => {
    const data = event.data as { content?: unknown; message?: { content?: unknown } };
    const content = (data.message?.content ?? data.content) as Array<{ type?: string; text?: string }> | undefined;
    return (content ?? []).map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('\n');
  };
  const marker = dcp.surface.events.map(textOf).find((text) => text.startsWith('<dcp-boundary '));
  const compressed = dcp.toolResults.find((result) => result.name === 'compress');
  const statsText = dcp.commands.find((command) => command.input === '/dcp stats')?.text ?? '';
  const statLines = statsText
    .split('\n')
    .filter((line) => /^(blocks|shadowed tokens|prune replacements|inline cleanups|history reduction|current surface)/u.test(line));
  writeLines(io, [
    'A scripted conversation ran on the real host with the DCP plugin mounted (no model needed):',
    `Every model step starts with a boundary marker the model can cite, e.g. ${marker ?? '(none)'}`,
    'The same file was read twice; at the next turn the older identical read was pruned automatically.',
    'Then the model called compress over the half-open range [m0001, m0005):',
    ...(compressed?.text
      .split('\n')
      .filter((line) => /^\d+\. /u.test(line))
      .map((line) => `  ${line}`) ?? []),
    'The model now sees the checkpoint where those turns were:',
    ...excerpt(textOf(dcp.surface.events[0] ?? { data: {} }), 2).map((line) => `  │ ${line}`),
    "/dcp stats (an excerpt; results stay out of the model's history):",
    ...statLines.map((line) => `  ${line}`),
    'All of the above was read back from the stored log by a plain reader with no DCP: markers and checkpoints are ordinary dsh messages.',
  ]);
}

/** The end of the walkthrough: commands to try next, over the corpus (when it is kept). */
async function keepExploring(
  io: CliIo,
  placement: DemoPlacement,
  engine: LocalSessionEngine,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { root, kept } = placement;
  const checkoutMention = formatSessionReferenceMention({ sessionId: DEMO_IDS.checkout, label: 'checkout 409' });
  heading(io, 'Keep exploring');
  const show = await engine.readSurface(asSessionId(DEMO_IDS.checkout), signal);
  // A removed corpus cannot be explored: the commands then name the root a kept demo would have.
  const at = kept ? root : 'DIR';
  // Each line runs as printed, here: `node dist/src/main/faces/cli/bin.js` in a checkout, `npx sessionctx` when installed.
  const cli = cliInvocation(process.argv[1], io.cwd);
  writeLines(io, [
    ...(kept
      ? []
      : [
          `This corpus is removed when the demo ends. To explore one, run ${cli} demo --root DIR (or ${cli} demo --keep and use the root it prints), then:`,
        ]),
    `${cli} sessions --root ${at}`,
    `${cli} sessions --root ${at} --query checkout --cwd ${DEMO_CWDS.webshop}`,
    `${cli} show ${DEMO_IDS.checkout} --root ${at}          (${show.events.length} surface events)`,
    `${cli} mention ${DEMO_IDS.training} --label "training OOM" --root ${at}`,
    `${cli} prepare --root ${at} --target my-new-session "Build on ${checkoutMention}"`,
    `${cli} dcp show b1 --raw --session ${DEMO_DCP_ID} --root ${at}`,
  ]);
}

/** `sessionctx demo [--keep] [--root DIR]`. */
export const demoCommand: CliCommandDefinition<[], { readonly keep?: boolean }> = {
  name: ['demo'],
  usage: {
    description:
      'write a demo corpus (to a temporary directory, removed at the end, unless --root or --keep) and walk through discovery, mentions, snapshots, budgets, errors and DCP',
    examples: ['sessionctx demo', 'sessionctx demo --keep', 'sessionctx demo --root ~/demo-sessions'],
    workers: false,
  },
  options: [
    {
      flags: '--keep',
      description: 'keep the temporary corpus and print where it is (a --root corpus is always kept; the root must be missing or empty)',
    },
  ],
  run(context, { options }) {
    // Only a root given on the command line is the demo's: the configured default root is never written to.
    const root = options.root === undefined ? undefined : context.resolved.config.root;
    return runDemoCommand(context.io, { root, json: context.json, keep: options.keep === true }, context.signal);
  },
};
