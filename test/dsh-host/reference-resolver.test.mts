/**
 * `sessionctx/dsh` in a real dsh 0.1.0-rc.8 host, against dsh's own resolver in the same host: each scenario runs once
 * with `@deepseek-ai/dsh-session-reference` and once per sessionctx mode (engine on its pool, engine on the host's
 * thread, the host's reads), on fresh copies of the same dsh-written root, with the same seeded ids and clock. Every
 * model request, every `agent/error`, the target's in-memory log, its persisted log file and every file of the root
 * must be byte-identical (docs/DSH.md §6: D3 and D5 do not arise on these inputs; the budget errors' two documented
 * extra properties are the only difference allowed).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUserMessage } from '@deepseek-ai/dsh-llm';
import { SessionId } from '@deepseek-ai/dsh-session';
import { formatSessionReferenceMention } from '@deepseek-ai/dsh-session-reference';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DSH_SMALL } from './harness/fixture-root.mts';
import { writeLongSessions } from './support/long-sessions.mts';
import { DSH, SESSIONCTX_VARIANTS, TARGET, TARGET_CWD, runScenario } from './support/resolver-runs.mts';
import type { RunRecord, Scenario } from './support/resolver-runs.mts';

const OOM = 'session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f'; // crashed inside an open turn
const EARLY_STOP = 'session-f8151068-dc58-4d60-b7e2-f553f8b6d366'; // one native compaction
const CONFIG_LOADER = 'session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca'; // four compactions, 6,473 events
const FORK = 'session-a2470bba-537b-4474-9cb8-e4c2bc4e00d9'; // a fork (seedLength 1575)
const MIGRATION = 'session-b2f4f8ab-862e-4eff-b7d3-68298f7abfc7'; // five compactions
const ROUNDING = 'session-ca7027f6-8fd2-48d1-b5ed-3c59f38e7cc7'; // a CJK title
const LIVE = 'session-11111111-1111-4111-8111-111111111111';
const DAMAGED = 'session-b99d11fb-ed8b-457b-bc61-115cdd9c0d46';
const LONG = [
  'session-8a000000-0000-4000-8000-00000000000a',
  'session-8b000000-0000-4000-8000-00000000000b',
  'session-8c000000-0000-4000-8000-00000000000c',
];

/** Budget errors carry two documented properties dsh's do not (docs/SESSION-REFERENCE.md D4). */
const DOCUMENTED_ERROR_ADDITIONS = new Set(['sourceSessionId', 'minimumBudgetBytes']);

function mention(sessionId: string, label?: string): string {
  return formatSessionReferenceMention({ sessionId: SessionId(sessionId), ...(label === undefined ? {} : { label }) });
}

const RAW = join(DSH_SMALL, 'raw');
const ZSTD = join(DSH_SMALL, 'zstd');

const SCENARIOS: ReadonlyArray<
  Scenario & { readonly root?: 'raw' | 'zstd' | 'long' | 'damaged'; readonly expect: (dsh: RunRecord) => void }
> = [
  {
    name: 'a pair of sources with labels',
    text: () => `Compare ${mention(OOM, 'the OOM')} with ${mention(EARLY_STOP, 'early stopping')} before we change the loader.`,
    expect: (dsh) => {
      expect(dsh.outcome).toEqual({ kind: 'completed' });
      expect(dsh.requests).toHaveLength(1);
      expect(dsh.requests[0]?.messages.map((message) => message.source.kind)).toEqual(['user', 'session-reference']);
    },
  },
  {
    name: 'a pair of sources on a zstd root',
    root: 'zstd',
    text: () => `Compare ${mention(OOM, 'the OOM')} with ${mention(EARLY_STOP, 'early stopping')}.`,
    expect: (dsh) => expect(dsh.requests).toHaveLength(1),
  },
  {
    name: 'a small budget over compacted sources',
    config: { maxReferenceBytes: 1500 },
    text: () => `What did ${mention(CONFIG_LOADER)} and ${mention(MIGRATION, 'the migration')} decide?`,
    expect: (dsh) => {
      expect(dsh.requests).toHaveLength(1);
      const source = dsh.requests[0]?.messages[1]?.source as { references: Array<{ truncated: boolean; compacted: boolean }> };
      expect(source.references.map((reference) => [reference.truncated, reference.compacted])).toEqual([
        [true, true],
        [true, true],
      ]);
    },
  },
  {
    name: 'a crashed source and a fork',
    text: () => `Background: ${mention(OOM)}, ${mention(FORK, 'the fork')}.`,
    expect: (dsh) => expect(dsh.requests).toHaveLength(1),
  },
  {
    name: 'a CJK title',
    text: () => `请看 ${mention(ROUNDING, '订单总价的四舍五入有问题')} 的结论。`,
    expect: (dsh) => expect(JSON.stringify(dsh.requests)).toContain('订单总价的四舍五入有问题'),
  },
  {
    name: 'a live source with unflushed events',
    replies: [
      { kind: 'text', text: 'The live source answered.' },
      { kind: 'text', text: 'Noted.' },
    ],
    before: async (host) => {
      const source = await host.createSession({ id: LIVE, cwd: TARGET_CWD });
      await host.runTurn(source, 'Find why the nightly job stalls.');
      // Appended after the last flush: only the live session has it (the write-behind window never fires).
      source.session.append(
        'user/message',
        createUserMessage({
          content: [{ type: 'text', text: 'unflushed live fact: the stall is in the shard loader' }],
          source: { kind: 'user' },
        }),
        { surfaceOp: 'append' },
      );
    },
    text: () => `Use ${mention(LIVE, 'the live one')}.`,
    expect: (dsh) => expect(JSON.stringify(dsh.requests.at(-1))).toContain('unflushed live fact'),
  },
  {
    name: 'a missing source',
    text: () => `See ${mention('session-does-not-exist', 'gone')}.`,
    expect: (dsh) => {
      expect(dsh.requests).toHaveLength(0);
      expect(dsh.errors[0]?.chain[0]?.code).toBe('SESSION_REFERENCE_READ_FAILED');
    },
  },
  {
    name: 'a damaged source log (an unparsable committed line)',
    root: 'damaged',
    text: () => `Compare ${mention(DAMAGED, 'the plan failure')} with ${mention(OOM)}.`,
    expect: (dsh) => {
      expect(dsh.requests).toHaveLength(0);
      expect(dsh.errors[0]?.chain.map((link) => link.message)).toEqual([
        `failed to read referenced session: failed to inspect session "${DAMAGED}": corrupt session log: unparsable committed event at line 5`,
        `failed to inspect session "${DAMAGED}": corrupt session log: unparsable committed event at line 5`,
        'corrupt session log: unparsable committed event at line 5',
      ]);
    },
  },
  {
    name: 'an overflowing budget',
    config: { maxReferenceBytes: 16 },
    text: () => `See ${mention(OOM)}.`,
    expect: (dsh) => expect(dsh.errors[0]?.chain[0]?.code).toBe('SESSION_REFERENCE_BUDGET_EXCEEDED'),
  },
  {
    name: 'too many references',
    text: () => `${mention(OOM)} ${mention(EARLY_STOP)} ${mention(FORK)} ${mention(ROUNDING)}`,
    expect: (dsh) => expect(dsh.errors[0]?.chain[0]?.code).toBe('SESSION_REFERENCE_TOO_MANY'),
  },
  {
    name: 'a self-reference',
    text: () => `Look at ${mention(TARGET, 'this very session')}.`,
    expect: (dsh) => expect(dsh.errors[0]?.chain[0]?.code).toBe('SESSION_REFERENCE_SELF_REFERENCE'),
  },
  {
    name: 'an invalid URI',
    text: () => 'Look at @[bad](dsh-session:not-canonical) and tell me.',
    expect: (dsh) => expect(dsh.errors[0]?.chain[0]?.code).toBe('SESSION_REFERENCE_INVALID_REFERENCE'),
  },
  {
    name: 'cancellation mid-preparation',
    text: () => `Compare ${mention(CONFIG_LOADER)} with ${mention(MIGRATION)}.`,
    turnOptions: () => ({ onPreStep: (info) => info.cancel() }),
    expect: (dsh) => {
      expect(dsh.outcome).toEqual({ kind: 'aborted', reason: { kind: 'user' } });
      expect(dsh.requests).toHaveLength(0);
    },
  },
  {
    name: 'three multi-megabyte sources',
    root: 'long',
    text: () =>
      `Summarise ${mention(LONG[0] as string, 'first')}, ${mention(LONG[1] as string, 'second')} and ${mention(LONG[2] as string, 'third')}.`,
    expect: (dsh) => {
      expect(dsh.requests).toHaveLength(1);
      const source = dsh.requests[0]?.messages[1]?.source as { references: Array<{ originalMessages: number }> };
      expect(source.references.map((reference) => reference.originalMessages)).toEqual([256, 256, 256]);
    },
  },
];

let longRoot: string;
let damagedRoot: string;
beforeAll(async () => {
  // One committed line of one log made unparsable (the header and every other session intact).
  damagedRoot = mkdtempSync(join(tmpdir(), 'dsh-damaged-'));
  cpSync(RAW, damagedRoot, { recursive: true });
  const log = join(damagedRoot, '--srv-infra-terraform--', DAMAGED, 'session.jsonl');
  const lines = readFileSync(log, 'utf8').split('\n');
  lines[5] = '{"type": ';
  writeFileSync(log, lines.join('\n'));
  longRoot = mkdtempSync(join(tmpdir(), 'dsh-long-'));
  cpSync(RAW, longRoot, { recursive: true });
  // 3 × ~8 MB of assistant text: 128 turns of 64 KiB each per session.
  await writeLongSessions(longRoot, { ids: LONG, cwd: TARGET_CWD, bytesPerSession: 8 * 1024 * 1024, replyBytes: 64 * 1024 });
}, 600_000);
afterAll(() => {
  rmSync(longRoot, { recursive: true, force: true });
  rmSync(damagedRoot, { recursive: true, force: true });
});

/** `ours`'s error records with the codes of the links where dsh's `reference` has none set to none. */
function withoutAddedCodes(reference: RunRecord): (record: RunRecord['errors'][number], index: number) => RunRecord['errors'][number] {
  return (record, index) => ({
    ...record,
    chain: record.chain.map((link, depth) =>
      reference.errors[index]?.chain[depth]?.code === undefined ? { ...link, code: undefined } : link,
    ),
  });
}

function rootOf(kind: 'raw' | 'zstd' | 'long' | 'damaged' | undefined): string {
  if (kind === 'damaged') return damagedRoot;
  return kind === 'zstd' ? ZSTD : kind === 'long' ? longRoot : RAW;
}

describe('sessionctx/dsh against dsh-session-reference in the same dsh host', () => {
  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: byte-identical requests, errors, events, log and root`, async () => {
      const template = rootOf(scenario.root);
      const reference = await runScenario(template, DSH, scenario);
      scenario.expect(reference);
      for (const variant of SESSIONCTX_VARIANTS) {
        const ours = await runScenario(template, variant, scenario);
        const label = `${scenario.name} (${variant.name})`;
        expect(JSON.stringify(ours.requests), label).toBe(JSON.stringify(reference.requests));
        // Every link of every error chain has dsh's name and message (what the agent loop logs); a link to which dsh
        // gives no code may carry sessionctx's stable one (docs/DSH.md §6).
        expect(ours.errors.map(withoutAddedCodes(reference)), label).toEqual(reference.errors);
        for (const [index, keys] of ours.errorKeys.entries()) {
          const extra = keys.filter((key) => !(reference.errorKeys[index] ?? []).includes(key));
          expect(
            extra.filter((key) => !DOCUMENTED_ERROR_ADDITIONS.has(key)),
            label,
          ).toEqual([]);
        }
        expect(ours.outcome, label).toEqual(reference.outcome);
        expect(ours.events, label).toBe(reference.events);
        expect(ours.log.equals(reference.log), `${label}: persisted log bytes`).toBe(true);
        expect([...ours.tree], label).toEqual([...reference.tree]);
        // The engine modes read the sources themselves; `reads: 'host'` goes through the host's query engine as dsh does.
        expect(ours.hostSurfaceReads, label).toBe(variant.config.reads === 'host' ? reference.hostSurfaceReads : 0);
      }
    });
  }
});
