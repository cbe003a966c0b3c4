// DCP.md §18 item 61 and §15.3: the `dcp_stats` cross-session store behind `/dcp stats`, through the real harness
// with MemoryStorage and failing storage stubs.
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../../../src/main/host-kit/storage/memory-storage.js';
import { computeLedger } from './ledger-oracle.js';
import type { DcpLedger } from '../../../../src/protocol/dcp/ledger.js';
import type { DcpHarness } from './dcp-harness.js';
import { compressReply, createDcpHarness, range, texts, turn } from './dcp-harness.js';
import type { PluginStorage, StorageDomain, StorageEntry, StorageOpenOptions } from '../../../../src/main/host-api/host-api.js';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** MemoryStorage with every `put` counted; puts fail with `disk full` while `failWrites` is set, opens fail while `failOpens > 0`. */
class ProbeStorage implements PluginStorage {
  readonly inner = new MemoryStorage();
  puts = 0;
  failWrites = false;
  failOpens = 0;

  async open(domain: string, options: StorageOpenOptions): Promise<StorageDomain> {
    if (this.failOpens > 0) {
      this.failOpens -= 1;
      throw new Error('storage offline');
    }
    const handle = await this.inner.open(domain, options);
    return {
      get: (key) => handle.get(key),
      put: async (key, value) => {
        this.puts += 1;
        if (this.failWrites) throw new Error('disk full');
        await handle.put(key, value);
      },
      list: () => handle.list(),
      close: () => handle.close(),
    };
  }

  /** Writes straight to the inner storage (not counted). */
  async seed(key: string, value: unknown): Promise<void> {
    await (await this.inner.open('dcp_stats', { version: 1 })).put(key, value);
  }

  async record(key: string): Promise<unknown> {
    return (await this.inner.open('dcp_stats', { version: 1 })).get(key);
  }

  async entries(): Promise<readonly StorageEntry[]> {
    return (await this.inner.open('dcp_stats', { version: 1 })).list();
  }
}

/** The domain block: everything after the blank line that ends the session block. */
function domainBlock(text: string): string {
  const at = text.indexOf('\n\npersistent domain: ');
  expect(at).toBeGreaterThan(0);
  return text.slice(at + 2);
}

/** §15.1 `historyReduction`, written out from the spec. */
function reductionOf(ledger: DcpLedger): number {
  return (
    ledger.shadowedTokens +
    ledger.pruneTokens -
    ledger.checkpointTokens +
    ledger.cleanupTokens +
    ledger.expansionTokens -
    ledger.markerTokens
  );
}

/** A valid stored ledger by hand: `historyReduction = 900 + 30 − 120 + 12 − 40 − 20 = 762`; expansion negative. */
const HAND_LEDGER = {
  shadowedTokens: 900,
  checkpointTokens: 120,
  blockCount: 2,
  expansionTokens: -40,
  pruneTokens: 30,
  pruneReplacements: 1,
  cleanupTokens: 12,
  inlineCleanups: 1,
  markerTokens: 20,
  historyReduction: 762,
};

/** `record` without `key` (JSON has no undefined). */
function without(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...record };
  delete copy[key];
  return copy;
}

function handRecord(sessionId: string, eventCount = 40, updatedAt = '2026-08-28T10:00:00.000Z'): Record<string, unknown> {
  return { v: 1, sessionId, eventCount, ledger: { ...HAND_LEDGER }, updatedAt };
}

/** A session with one DCP block (b1) after four turns; the compress happens in turn 4. */
async function compressedSession(storage: PluginStorage | undefined, sessionId?: string): Promise<DcpHarness> {
  const harness = createDcpHarness({
    ...(storage === undefined ? {} : { storage }),
    ...(sessionId === undefined ? {} : { sessionId }),
    script: [
      ...texts(3),
      compressReply([range('m0002', 'm0004', 'Turns two and three: two questions answered about the parser.')]),
      { text: 'ok' },
      { text: 'after' },
    ],
  });
  for (let index = 1; index <= 4; index++) await turn(harness, `turn ${index} ${'s'.repeat(300)}`);
  return harness;
}

describe('§18 item 61: the dcp_stats domain store', () => {
  it('new events → a write of {v:1, sessionId, eventCount, ledger, updatedAt}, shown as current; the record lags command/done by one event', async () => {
    const storage = new ProbeStorage();
    const harness = await compressedSession(storage);
    const { session } = harness;
    const observed = session.events.length + 1; // the handler sees its own command/run
    const stats = await harness.runCommand('/dcp stats');
    expect(stats.kind).toBe('success');
    expect(session.events.length).toBe(observed + 1);
    expect(storage.puts).toBe(1);
    const ledger = computeLedger(harness.index(), session);
    expect(ledger.blockCount).toBe(1);
    const stored = (await storage.record('test-session')) as Record<string, unknown>;
    expect(Object.keys(stored)).toEqual(['v', 'sessionId', 'eventCount', 'ledger', 'updatedAt']);
    expect(stored).toEqual({
      v: 1,
      sessionId: 'test-session',
      eventCount: observed,
      ledger: { ...ledger, historyReduction: reductionOf(ledger) },
      updatedAt: stored['updatedAt'],
    });
    expect(stored['updatedAt']).toMatch(ISO_TIME);
    expect(domainBlock(stats.text)).toBe(
      [
        'persistent domain: current (single-process scope)',
        'sessions: 1',
        'blocks: 1',
        `history reduction: ~${reductionOf(ledger)}`,
        `last sync: ${String(stored['updatedAt'])}`,
      ].join('\n'),
    );

    // command/done and a new turn are new events: the next sync writes again and catches up.
    await turn(harness, 'one more');
    const nextObserved = session.events.length + 1;
    await harness.runCommand('/dcp stats');
    expect(storage.puts).toBe(2);
    expect((await storage.record('test-session')) as { eventCount: number }).toMatchObject({ eventCount: nextObserved });
  });

  it('same eventCount → no second write; the kept record is shown', async () => {
    const storage = new ProbeStorage();
    const harness = createDcpHarness({ storage, script: texts(1) });
    await turn(harness, 'hello');
    // A record already covering exactly what the command will observe (the log plus its command/run).
    await storage.seed('test-session', handRecord('test-session', harness.session.events.length + 1));
    const stats = await harness.runCommand('/dcp stats');
    expect(storage.puts).toBe(0);
    expect(domainBlock(stats.text)).toBe(
      'persistent domain: current (single-process scope)\nsessions: 1\nblocks: 2\nhistory reduction: ~762\nlast sync: 2026-08-28T10:00:00.000Z',
    );
    expect(await storage.record('test-session')).toEqual(handRecord('test-session', harness.session.events.length - 1));
  });

  it('two syncs at one eventCount write once and compute the ledger once', async () => {
    const storage = new ProbeStorage();
    const harness = createDcpHarness({ storage, script: texts(1) });
    await turn(harness, 'hello');
    let computed = 0;
    const input = {
      sessionId: harness.session.id,
      eventCount: harness.session.events.length,
      ledger: () => {
        computed += 1;
        return computeLedger(harness.index(), harness.session);
      },
    };
    const first = await harness.runtime.domainStats.sync(input);
    const second = await harness.runtime.domainStats.sync(input);
    expect(storage.puts).toBe(1);
    expect(computed).toBe(1);
    expect(first.status).toBe('current');
    expect(second).toEqual(first);
  });

  it('a stored cursor ahead of the log → stale (stored cursor <x> ahead of observed <y>) with the old view, nothing written', async () => {
    const storage = new ProbeStorage();
    const harness = createDcpHarness({ storage, script: texts(1) });
    await turn(harness, 'hello');
    const observed = harness.session.events.length + 1;
    await storage.seed('test-session', handRecord('test-session', 500));
    const stats = await harness.runCommand('/dcp stats');
    expect(storage.puts).toBe(0);
    expect(domainBlock(stats.text)).toBe(
      `persistent domain: stale (stored cursor 500 ahead of observed ${observed})\nsessions (old view): 1\nblocks (old view): 2\nobserved cursor: ${observed}`,
    );
  });

  it('a write error → stale (<error message>) with the old record and aggregate as the old view; the session block and the log are untouched', async () => {
    const storage = new ProbeStorage();
    const harness = createDcpHarness({
      storage,
      script: [
        ...texts(3),
        compressReply([range('m0002', 'm0004', 'Turns two and three: two questions answered about the parser.')]),
        { text: 'ok' },
        { text: 'after' },
      ],
    });
    await turn(harness, `turn 1 ${'s'.repeat(300)}`);
    const first = await harness.runCommand('/dcp stats');
    expect(domainBlock(first.text)).toMatch(/^persistent domain: current \(single-process scope\)\nsessions: 1\nblocks: 0\n/);
    const oldRecord = await storage.record('test-session');
    for (let index = 2; index <= 4; index++) await turn(harness, `turn ${index} ${'s'.repeat(300)}`);
    expect(computeLedger(harness.index(), harness.session).blockCount).toBe(1);

    storage.failWrites = true;
    const observed = harness.session.events.length + 1;
    const stats = await harness.runCommand('/dcp stats');
    expect(stats.kind).toBe('success');
    expect(stats.text.startsWith('DCP statistics (heuristic token estimates):\nblocks (hist/act): 1/1\n')).toBe(true);
    expect(domainBlock(stats.text)).toBe(
      `persistent domain: stale (disk full)\nsessions (old view): 1\nblocks (old view): 0\nobserved cursor: ${observed}`,
    );
    expect(storage.puts).toBe(2);
    expect(await storage.record('test-session')).toEqual(oldRecord);
    expect(harness.errors).toEqual([]);
    // The failure reaches only the human-facing result (which the host records in command/done), no other event.
    expect(JSON.stringify(harness.session.events.filter((event) => event.type !== 'command/done'))).not.toContain('disk full');

    // Once writes work again the next sync catches up.
    storage.failWrites = false;
    const healed = await harness.runCommand('/dcp stats');
    expect(domainBlock(healed.text)).toMatch(/^persistent domain: current \(single-process scope\)\nsessions: 1\nblocks: 1\n/);
  });

  it('no storage → unavailable (storage not wired); storage provided later → current', async () => {
    const harness = createDcpHarness({ script: texts(1) });
    await turn(harness, 'hello');
    const before = await harness.runCommand('/dcp stats');
    expect(before.kind).toBe('success');
    expect(domainBlock(before.text)).toBe('persistent domain: unavailable (storage not wired)');

    const storage = new ProbeStorage();
    harness.agent.provideStorage(storage);
    const after = await harness.runCommand('/dcp stats');
    expect(storage.puts).toBe(1);
    const stored = (await storage.record('test-session')) as { updatedAt: string };
    const reduction = reductionOf(computeLedger(harness.index(), harness.session));
    expect(domainBlock(after.text)).toBe(
      `persistent domain: current (single-process scope)\nsessions: 1\nblocks: 0\nhistory reduction: ~${reduction}\nlast sync: ${stored.updatedAt}`,
    );
  });

  it('a storage that names its scope is shown with it: current (<scope>) instead of the single-process scope', async () => {
    const memory = new MemoryStorage();
    const scoped: PluginStorage = { scope: 'in memory only: no storage domain', open: (domain, options) => memory.open(domain, options) };
    const harness = createDcpHarness({ script: texts(1), storage: scoped });
    await turn(harness, 'hello');
    const stats = await harness.runCommand('/dcp stats');
    expect(domainBlock(stats.text).split('\n')[0]).toBe('persistent domain: current (in memory only: no storage domain)');
  });

  it('one invalid record → skipped and counted; the other sessions are summed', async () => {
    const storage = new ProbeStorage();
    const first = await compressedSession(storage, 'session-a');
    await first.runCommand('/dcp stats');
    const ledgerA = computeLedger(first.index(), first.session);
    // A valid record of another session (negative expansion delta) and one whose ledger equation does not hold.
    await storage.seed('session-c', handRecord('session-c'));
    await storage.seed('session-bad', { ...handRecord('session-bad'), ledger: { ...HAND_LEDGER, historyReduction: 761 } });

    const second = createDcpHarness({ storage, sessionId: 'session-b', script: texts(1) });
    await turn(second, 'hello');
    const stats = await second.runCommand('/dcp stats');
    const ledgerB = computeLedger(second.index(), second.session);
    const stored = (await storage.record('session-b')) as { updatedAt: string };
    expect(domainBlock(stats.text)).toBe(
      [
        'persistent domain: current (single-process scope)',
        'sessions: 3',
        `blocks: ${ledgerA.blockCount + 2 + ledgerB.blockCount}`,
        `history reduction: ~${reductionOf(ledgerA) + 762 + reductionOf(ledgerB)}`,
        `last sync: ${stored.updatedAt}`,
        'invalid records skipped: 1',
      ].join('\n'),
    );
    expect(ledgerA.blockCount).toBe(1);
  });

  const valid = handRecord('other');
  const invalidRecords: Array<[string, unknown]> = [
    ['not an object', 'text'],
    ['v other than 1', { ...valid, v: 2 }],
    ['sessionId different from the key', { ...valid, sessionId: 'someone-else' }],
    ['negative eventCount', { ...valid, eventCount: -1 }],
    ['fractional eventCount', { ...valid, eventCount: 1.5 }],
    ['eventCount beyond safe integers', { ...valid, eventCount: 2 ** 53 }],
    ['updatedAt not an ISO time', { ...valid, updatedAt: 'yesterday' }],
    ['missing ledger', { v: 1, sessionId: 'other', eventCount: 3, updatedAt: '2026-08-28T10:00:00.000Z' }],
    ['negative blockCount', { ...valid, ledger: { ...HAND_LEDGER, blockCount: -1 } }],
    ['negative shadowedTokens (equation kept)', { ...valid, ledger: { ...HAND_LEDGER, shadowedTokens: -100, historyReduction: -238 } }],
    ['string markerTokens', { ...valid, ledger: { ...HAND_LEDGER, markerTokens: '20' } }],
    ['missing pruneReplacements', { ...valid, ledger: without(HAND_LEDGER, 'pruneReplacements') }],
    ['fractional expansionTokens', { ...valid, ledger: { ...HAND_LEDGER, expansionTokens: -40.5, historyReduction: 761.5 } }],
    ['missing historyReduction', { ...valid, ledger: without(HAND_LEDGER, 'historyReduction') }],
    ['ledger equation broken', { ...valid, ledger: { ...HAND_LEDGER, historyReduction: 0 } }],
  ];

  it.each(invalidRecords)('a record with %s is skipped and counted', async (_label, value) => {
    const storage = new ProbeStorage();
    await storage.seed('other', value);
    const harness = createDcpHarness({ storage, script: texts(1) });
    await turn(harness, 'hello');
    const stats = await harness.runCommand('/dcp stats');
    const stored = (await storage.record('test-session')) as { updatedAt: string };
    const reduction = reductionOf(computeLedger(harness.index(), harness.session));
    expect(domainBlock(stats.text)).toBe(
      `persistent domain: current (single-process scope)\nsessions: 1\nblocks: 0\nhistory reduction: ~${reduction}\nlast sync: ${stored.updatedAt}\ninvalid records skipped: 1`,
    );
  });

  it('signed figures may be negative: expansionTokens, cleanupTokens and an overhead historyReduction make a valid record', async () => {
    const storage = new ProbeStorage();
    // 10 + 0 − 50 + (−5) + (−30) − 25 = −100
    const overhead = {
      shadowedTokens: 10,
      checkpointTokens: 50,
      blockCount: 1,
      expansionTokens: -30,
      pruneTokens: 0,
      pruneReplacements: 0,
      cleanupTokens: -5,
      inlineCleanups: 1,
      markerTokens: 25,
      historyReduction: -100,
    };
    await storage.seed('other', { ...handRecord('other'), ledger: overhead });
    const harness = createDcpHarness({ storage, script: texts(1) });
    await turn(harness, 'hello');
    const stats = await harness.runCommand('/dcp stats');
    const reduction = reductionOf(computeLedger(harness.index(), harness.session));
    expect(domainBlock(stats.text)).toMatch(
      new RegExp(
        `^persistent domain: current \\(single-process scope\\)\nsessions: 2\nblocks: 1\nhistory reduction: ~${-100 + reduction}\nlast sync: [^\n]+$`,
      ),
    );
  });

  it('an invalid record of this session is overwritten by the sync, not counted', async () => {
    const storage = new ProbeStorage();
    await storage.seed('test-session', { v: 1, sessionId: 'test-session', eventCount: 999 });
    const harness = createDcpHarness({ storage, script: texts(1) });
    await turn(harness, 'hello');
    const observed = harness.session.events.length + 1;
    const stats = await harness.runCommand('/dcp stats');
    expect(storage.puts).toBe(1);
    expect(await storage.record('test-session')).toMatchObject({ v: 1, sessionId: 'test-session', eventCount: observed });
    const reduction = reductionOf(computeLedger(harness.index(), harness.session));
    expect(domainBlock(stats.text)).toMatch(
      new RegExp(
        `^persistent domain: current \\(single-process scope\\)\nsessions: 1\nblocks: 0\nhistory reduction: ~${reduction}\nlast sync: [^\n]+$`,
      ),
    );
    expect((await storage.entries()).map((entry) => entry.key)).toEqual(['test-session']);
  });

  it('a failed open → unavailable (<error message>); the next sync opens again', async () => {
    const storage = new ProbeStorage();
    storage.failOpens = 1;
    const harness = createDcpHarness({ storage, script: texts(1) });
    await turn(harness, 'hello');
    const failed = await harness.runCommand('/dcp stats');
    expect(failed.kind).toBe('success');
    expect(domainBlock(failed.text)).toBe('persistent domain: unavailable (storage offline)');
    const retried = await harness.runCommand('/dcp stats');
    expect(domainBlock(retried.text)).toMatch(/^persistent domain: current \(single-process scope\)\nsessions: 1\n/);
    expect(storage.puts).toBe(1);
  });
});
