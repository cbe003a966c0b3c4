// The warm corpus view's bound, reports and life cycle (issue 15, items 1 and 4): with notifications lost, an
// answer is correct once the staleness bound has passed; each discovery call reports how it was served without
// changing its result; the root vanishing, reappearing and being replaced; configuration errors; and closing
// releases every watch, so a process that closes its engine (or watcher) exits by itself.
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runModuleProcess } from '../../../support/module-process.js';
import { createEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { resolveCorpusViewConfig } from '../../../../src/main/engine/corpus/corpus-view-config.js';
import { recordDiscovery, type DiscoveryReport } from '../../../../src/main/engine/corpus/warm-discovery.js';
import { SessionQueryError } from '../../../../src/protocol/errors.js';
import { answers, manualSide, RandomRoot, TARGET } from './warm-view-harness.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-warm-life-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function seeded(count: number): Promise<RandomRoot> {
  const random = await RandomRoot.open(join(dir, 'root'), 'none');
  for (let index = 0; index < count; index += 1) await random.apply({ kind: 'create', cwd: index % 4, titled: true, createdAt: index }, []);
  return random;
}

describe('staleness bound with every notification lost', () => {
  it('answers correctly once revalidateMs has passed since the change', async () => {
    const random = await seeded(4);
    const bound = 400;
    const warm = await manualSide(random.root, 'none', join(dir, 'cache'), { revalidateMs: bound, ignoreNotifications: true });
    const cold = await manualSide(random.root, 'none', join(dir, 'cache'));
    try {
      expect(await answers(warm)).toEqual(await answers(cold));
      await random.apply({ kind: 'title', pick: 1 }, []);
      await random.apply({ kind: 'create', cwd: 1, titled: true, createdAt: 9 }, []);
      await random.apply({ kind: 'corrupt', pick: 2 }, []);
      const changedAt = performance.now();
      const expected = await answers(cold);
      // Before the bound an answer may still be the old one; after it, never.
      await sleep(Math.max(0, bound + 20 - (performance.now() - changedAt)));
      expect(await answers(warm)).toEqual(expected);
      expect(warm.view?.stats.notifications).toBe(0);
      expect(warm.view?.stats.sweeps).toBeGreaterThan(0);
    } finally {
      await warm.close();
    }
  });

  it('reports what a background sweep found to the change listeners, with no call made meanwhile', async () => {
    // A host that follows the change listeners (MCP list_changed, the Web's event stream) and makes no call of its own
    // must learn of a change no notification reported (a watch placed after the write it missed) within the bound.
    // The sweep used to mark it and wait for the next call: the Web's catch-up test timed out on a loaded machine.
    const random = await seeded(3);
    const bound = 300;
    const warm = await manualSide(random.root, 'none', join(dir, 'cache'), { revalidateMs: bound, ignoreNotifications: true });
    const cold = await manualSide(random.root, 'none', join(dir, 'cache'));
    try {
      expect(await answers(warm)).toEqual(await answers(cold));
      const view = warm.view as NonNullable<typeof warm.view>;
      let changes = 0;
      view.onChange(() => {
        changes += 1;
      });
      const before = view.stats.refreshes;
      await random.apply({ kind: 'create', cwd: 1, titled: true, createdAt: 9 }, []);
      const deadline = performance.now() + bound * 20;
      while (changes === 0 && performance.now() < deadline) await sleep(bound / 4);
      expect(changes).toBeGreaterThan(0);
      // Taken in by the background refresh the sweep started, not by a call: the next answer is current.
      expect(view.stats.refreshes).toBeGreaterThan(before);
      expect(await answers(warm)).toEqual(await answers(cold));
    } finally {
      await warm.close();
    }
  });

  it('a call that finds the last sweep older than the bound re-validates before answering', async () => {
    const random = await seeded(3);
    // A bound the background sweep (every bound / 2) cannot have met yet: the call must sweep itself.
    const warm = await manualSide(random.root, 'none', join(dir, 'cache'), { revalidateMs: 0, ignoreNotifications: true });
    const cold = await manualSide(random.root, 'none', join(dir, 'cache'));
    try {
      expect(await answers(warm)).toEqual(await answers(cold));
      await random.apply({ kind: 'title', pick: 0 }, []);
      expect(await answers(warm)).toEqual(await answers(cold));
    } finally {
      await warm.close();
    }
  });
});

describe('discovery reports (onDiscovery)', () => {
  it('says cold, then warm, then incremental after a change, with results equal to a cold engine', async () => {
    const random = await seeded(5);
    const reports: DiscoveryReport[] = [];
    const warm = await createEngine({
      root: random.root,
      workers: false,
      store: { cacheDirectory: join(dir, 'cache') },
      onDiscovery: (report) => reports.push(report),
    });
    const coldReports: DiscoveryReport[] = [];
    const cold = await createEngine({
      root: random.root,
      workers: false,
      store: { titleIndex: false },
      corpus: { watch: false },
      onDiscovery: (report) => coldReports.push(report),
    });
    try {
      expect(await warm.listCandidates(TARGET, 'topic')).toEqual(await cold.listCandidates(TARGET, 'topic'));
      expect(await warm.candidates(TARGET, 'a')).toEqual(await cold.candidates(TARGET, 'a'));
      await random.apply({ kind: 'title', pick: 3 }, []);
      expect(await warm.listCandidates(TARGET, 'renamed')).toEqual(await cold.listCandidates(TARGET, 'renamed'));
      expect(await warm.listSessions()).toEqual(await cold.listSessions());
      expect(await warm.listSessionsReport()).toEqual(await cold.listSessionsReport());
      // The call after the change re-reads what its notifications named, unless a background refresh (they start
      // 5 ms after a notification) already has.
      expect(reports.map((report) => report.operation)).toEqual([
        'listCandidates',
        'candidates',
        'listCandidates',
        'listSessions',
        'listSessionsReport',
      ]);
      expect(reports.map((report) => report.served)).toEqual([
        'cold',
        'warm',
        reports[2]?.served === 'warm' ? 'warm' : 'incremental',
        'warm',
        'warm',
      ]);
      expect(reports[0]?.titleMisses).toBe(5);
      expect(reports[1]).toMatchObject({ rechecked: 0, titleMisses: 0 });
      expect(reports[3]).toMatchObject({ rechecked: 0, titleMisses: 0 });
      expect(coldReports.map((report) => report.served)).toEqual(['cold', 'cold', 'cold', 'cold', 'cold']);
    } finally {
      await warm.close();
      await cold.close();
    }
  });

  it('counts what a call re-read: one changed session, one directory and one title', async () => {
    const random = await seeded(4);
    // No notifications, so nothing is re-read in the background: the call does it all, and says so.
    const warm = await manualSide(random.root, 'none', join(dir, 'cache'), { revalidateMs: 0, ignoreNotifications: true });
    const cold = await manualSide(random.root, 'none', join(dir, 'cache'));
    const reports: DiscoveryReport[] = [];
    const report = (entry: DiscoveryReport): void => {
      reports.push(entry);
    };
    try {
      await recordDiscovery('listCandidates', () => warm.listCandidates(TARGET, 'topic', 100), report);
      await random.apply({ kind: 'title', pick: 2 }, []);
      const after = await recordDiscovery('listCandidates', () => warm.listCandidates(TARGET, 'renamed', 100), report);
      expect(after).toEqual(await cold.listCandidates(TARGET, 'renamed', 100));
      expect(after).toHaveLength(1);
      expect(reports).toEqual([
        { operation: 'listCandidates', served: 'cold', rechecked: 0, titleMisses: 4 },
        { operation: 'listCandidates', served: 'revalidated', rechecked: 1, titleMisses: 1 },
      ]);
    } finally {
      await warm.close();
    }
  });

  it('re-reads changed sessions and their titles in the background, so a later call is warm and current', async () => {
    const random = await seeded(4);
    const reports: DiscoveryReport[] = [];
    const warm = await createEngine({
      root: random.root,
      workers: false,
      store: { cacheDirectory: join(dir, 'cache') },
      corpus: { revalidateMs: 600_000 },
      onDiscovery: (report) => reports.push(report),
    });
    const cold = await manualSide(random.root, 'none', join(dir, 'cache'));
    try {
      await warm.listCandidates(TARGET, 'topic');
      await random.apply({ kind: 'title', pick: 1 }, []);
      await random.apply({ kind: 'append', pick: 3 }, []);
      // Notifications arrive, the refresh and the title prefetch run (a few ms; generous for a loaded machine).
      for (let waited = 0; waited < 5_000 && (warm.corpusViewStats()?.refreshes ?? 0) === 0; waited += 50) await sleep(50);
      await sleep(300);
      const after = await warm.listCandidates(TARGET, 'renamed');
      expect(after).toEqual(await cold.listCandidates(TARGET, 'renamed', 20));
      expect(after).toHaveLength(1);
      expect(reports.at(-1)).toEqual({ operation: 'listCandidates', served: 'warm', rechecked: 0, titleMisses: 0 });
    } finally {
      await warm.close();
    }
  });

  it('says revalidated when every call must re-validate (revalidateMs 0)', async () => {
    const random = await seeded(2);
    const reports: DiscoveryReport[] = [];
    const warm = await createEngine({
      root: random.root,
      workers: false,
      store: { cacheDirectory: join(dir, 'cache') },
      corpus: { revalidateMs: 0 },
      onDiscovery: (report) => reports.push(report),
    });
    try {
      await warm.listCandidates(TARGET, '');
      await warm.listCandidates(TARGET, '');
      expect(reports.map((report) => report.served)).toEqual(['cold', 'revalidated']);
    } finally {
      await warm.close();
    }
  });
});

describe('the root vanishing, reappearing and being replaced', () => {
  it('follows each change with answers equal to a cold observation', async () => {
    const random = await seeded(3);
    const warm = await createEngine({
      root: random.root,
      workers: false,
      store: { cacheDirectory: join(dir, 'cache') },
      corpus: { revalidateMs: 600_000 },
    });
    const cold = await manualSide(random.root, 'none', join(dir, 'cache'));
    const side = { listSessionsReport: () => warm.listSessionsReport(), listCandidates: warm.listCandidates.bind(warm) };
    try {
      expect(await answers(side)).toEqual(await answers(cold));
      await rm(random.root, { recursive: true, force: true });
      expect((await warm.listSessions()).length).toBe(0);
      expect(await answers(side)).toEqual(await answers(cold));
      // Reappears with other sessions (the store creates the root again).
      await random.apply({ kind: 'create', cwd: 2, titled: true, createdAt: 7 }, []);
      expect((await warm.listSessions()).length).toBe(1);
      expect(await answers(side)).toEqual(await answers(cold));
      // Replaced by another directory under the same name: the old watches name the moved-away one.
      const other = await RandomRoot.open(join(dir, 'other'), 'none');
      await other.apply({ kind: 'create', cwd: 0, titled: true, createdAt: 1 }, []);
      await other.apply({ kind: 'create', cwd: 1, titled: false, createdAt: 2 }, []);
      await rename(random.root, join(dir, 'old-root'));
      await rename(other.root, random.root);
      expect(await answers(side)).toEqual(await answers(cold));
      // And the replaced root is watched: an append to one of its sessions shows at once.
      const moved = await RandomRoot.open(random.root, 'none');
      moved.sessions.push(...other.sessions);
      await moved.apply({ kind: 'title', pick: 0 }, []);
      expect(await answers(side)).toEqual(await answers(cold));
    } finally {
      await warm.close();
    }
  });
});

describe('configuration', () => {
  it('validates corpus options once, with SESSION_QUERY_INVALID_CONFIG', async () => {
    expect(resolveCorpusViewConfig()).toEqual({ watch: true, revalidateMs: 30_000 });
    expect(resolveCorpusViewConfig({ watch: false, revalidateMs: 0 })).toEqual({ watch: false, revalidateMs: 0 });
    for (const [input, text] of [
      [{ watch: 'yes' }, 'corpus: watch must be a boolean'],
      [{ revalidateMs: -1 }, 'corpus: revalidateMs must be an integer from 0 to 86400000'],
      [{ revalidateMs: 1.5 }, 'corpus: revalidateMs must be an integer from 0 to 86400000'],
      [{ revalidateMs: 86_400_001 }, 'corpus: revalidateMs must be an integer from 0 to 86400000'],
    ] as const) {
      expect(() => resolveCorpusViewConfig(input)).toThrow(text);
      await expect(createEngine({ workers: false, corpus: input })).rejects.toMatchObject({
        code: 'SESSION_QUERY_INVALID_CONFIG',
        message: text,
      });
    }
    expect(() => resolveCorpusViewConfig({ revalidateMs: 'x' })).toThrow(SessionQueryError);
  });

  it('keeps discovery cold for a strict listing, titles from the pool, or no root', async () => {
    const random = await seeded(1);
    for (const options of [
      { root: random.root, store: { listing: 'strict' as const, cacheDirectory: join(dir, 'cache') } },
      { root: random.root, titles: 'pool' as const, store: { cacheDirectory: join(dir, 'cache') } },
      {},
    ]) {
      const engine = await createEngine({ workers: false, ...options });
      try {
        expect(engine.corpusViewStats()).toBeUndefined();
      } finally {
        await engine.close();
      }
    }
  });
});

const DIST = join(import.meta.dirname, '..', '..', '..', '..', 'src', 'main', 'engine');

describe('closing releases every watch', () => {
  it('engine.close() leaves no watch and the process exits by itself', async () => {
    const random = await seeded(3);
    const engineUrl = pathToFileURL(join(DIST, 'assembly', 'create-engine.js')).href;
    const code = await runModuleProcess(
      `
      const { createEngine } = await import(${JSON.stringify(engineUrl)});
      const engine = await createEngine({ root: ${JSON.stringify(random.root)}, store: { cacheDirectory: ${JSON.stringify(join(dir, 'cache'))} } });
      await engine.listCandidates({ id: 'x', session: { header: {} } }, 'a');
      if (!(engine.corpusViewStats().watched > 0)) process.exit(3);
      await engine.close();
      if (engine.corpusViewStats().watched !== 0) process.exit(4);
    `,
      20_000,
    );
    expect(code).toBe(0);
  });

  it('a persistent RootWatcher keeps its process alive until close(), then lets it exit', async () => {
    const random = await seeded(2);
    const watcherUrl = pathToFileURL(join(DIST, 'corpus', 'root-watcher.js')).href;
    const watch = (close: boolean): string => `
      const { RootWatcher } = await import(${JSON.stringify(watcherUrl)});
      const watcher = new RootWatcher({ root: ${JSON.stringify(random.root)}, persistent: true, strategy: 'per-directory', onChange: () => {} });
      if (!watcher.watch([], '0')) process.exit(3);
      if (!watcher.watch(['--w-alpha--'], '0')) process.exit(3);
      ${close ? 'watcher.close();' : ''}
    `;
    // Control: without close() the watches hold the process (so the check below can fail).
    expect(await runModuleProcess(watch(false), 1_500)).toBe('timeout');
    expect(await runModuleProcess(watch(true), 20_000)).toBe(0);
  });
});
