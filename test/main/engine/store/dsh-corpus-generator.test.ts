/**
 * The benchmark's corpus generator (bench/support/dsh-corpus.ts) writes artifacts directly, not through the store,
 * so a small generated corpus must pass everything the store checks: it lists with no problem (tolerant and strict),
 * every session inspects to exactly the events generated (chunk rows expanded, no closer added), folds a surface, and
 * its title is the one the generator decided; and the files sit where dsh's layout rules put them (SESSION-LOG.md
 * §9.2–§9.4, §9.9).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../../../../src/main/engine/corpus/session-query.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { Compression } from '../../../../src/protocol/storage-paths.js';
import { decodeCompleteFrame, initZstd } from '../../../../src/workers/decode/zstd-codec.js';
import { scanZstdFrames } from '../../../../src/workers/decode/zstd-frames.js';
import { dshCorpusSession, writeDshCorpus, type GeneratedSession } from '../../../../bench/support/dsh-corpus.js';
import { makeTempDir, removeTempDir } from './store-test-builders.js';

const OPTIONS = { sessions: 130, projects: 16, longEvery: 20, noCwdEvery: 9 } as const;
const generated: GeneratedSession[] = Array.from({ length: OPTIONS.sessions }, (_, index) => dshCorpusSession(index, OPTIONS));

/** dsh's project directory names for the cwd forms the generator uses, written out by hand from SESSION-LOG.md §9.4. */
const EXPECTED_PROJECT_DIRS: Readonly<Record<string, string>> = {
  '/work/project-3': '--work-project-3--',
  '/home/dev/My Projects/app 5': '--home-dev-My~0020Projects-app~00205--',
  '/mnt/c:/Users/dev/repo-7': '--mnt-c-Users-dev-repo-7--',
};

/**
 * §9.4 for the characters the generator's cwds hold: separator runs (`/`, `\`, `:`) become one `-`, a space is
 * escaped as `~0020`, leading `-` are dropped, and the slug is wrapped in `--`.
 */
function expectedProjectDir(cwd: string | undefined): string {
  if (cwd === undefined) return '_no-cwd';
  return `--${cwd
    .replace(/[/\\:]+/g, '-')
    .replaceAll(' ', '~0020')
    .replace(/^-+/, '')}--`;
}

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir();
});
afterAll(async () => {
  await removeTempDir(dir);
});

it('the hand-written project names agree with the rule the layout test applies', () => {
  for (const [cwd, name] of Object.entries(EXPECTED_PROJECT_DIRS)) expect(expectedProjectDir(cwd)).toBe(name);
});

it('the generated corpus has every shape the benchmark needs: small and long, cwd-less, every title kind, compactions', () => {
  expect(generated.some((session) => session.long)).toBe(true);
  expect(generated.some((session) => !session.long)).toBe(true);
  expect(generated.some((session) => session.header.cwd === undefined)).toBe(true);
  expect(new Set(generated.map((session) => session.header.cwd)).size).toBeGreaterThan(8);
  expect(new Set(generated.map((session) => session.titleKind))).toEqual(new Set(['none', 'fallback', 'model', 'rename']));
  expect(generated.filter((session) => session.long).every((session) => session.compactions === 1)).toBe(true);
  // Deterministic: the same index gives the same session.
  expect(JSON.stringify(dshCorpusSession(41, OPTIONS))).toBe(JSON.stringify(generated[41]));
});

describe.each(['zstd', 'none'] as const)('a generated %s corpus', (compression: Compression) => {
  let root: string;
  let store: JsonlSessionStore;
  beforeAll(async () => {
    root = join(dir, `root-${compression}`);
    const written = await writeDshCorpus(root, OPTIONS, compression);
    expect(written.sessions).toBe(OPTIONS.sessions);
    store = await JsonlSessionStore.open({ root, compression, titleIndexPath: join(dir, `titles-${compression}.v1`) });
  });

  it('lists every session with no listing problem, tolerant and strict', async () => {
    const report = await store.listReport();
    expect(report.problems).toEqual([]);
    expect(new Set(report.headers.map((header) => header.id))).toEqual(new Set(generated.map((session) => session.header.id)));
    for (const header of report.headers) {
      const session = generated.find((candidate) => candidate.header.id === header.id) as GeneratedSession;
      expect(header).toEqual(session.header);
    }
    const strict = await JsonlSessionStore.open({ root, compression, listing: 'strict', titleIndex: false });
    expect((await strict.list()).length).toBe(OPTIONS.sessions);
  });

  it('inspects every session to exactly the generated events, folds its surface and reads the generated title', async () => {
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store });
    for (const session of generated) {
      const inspection = await store.inspect(session.header.id);
      expect(inspection.meta).toEqual(session.header);
      expect(JSON.parse(JSON.stringify(inspection.events))).toEqual(session.events);
      const surface = await query.readSurface(session.header.id);
      expect(surface.capturedThroughSeq).toBe(session.events.length - 1);
      if (session.compactions > 0) expect(surface.events[0]?.type).toBe('user/message');
      expect((await query.readTitle(session.header.id))?.title).toBe(session.title);
    }
  });

  it("puts each artifact where dsh's layout rules say, and nothing else in the root", async () => {
    const artifact = compression === 'zstd' ? 'session.jsonl.zstd' : 'session.jsonl';
    const expectedPaths = new Set(
      generated.map((session) => {
        const project = expectedProjectDir(session.header.cwd);
        // The ids are plain `[a-z0-9-]`, which §9.3 keeps literally.
        return join(root, project, session.header.id, artifact);
      }),
    );
    const found = new Set<string>();
    for (const project of readdirSync(root, { withFileTypes: true })) {
      expect(project.isDirectory()).toBe(true);
      for (const sessionDir of readdirSync(join(root, project.name), { withFileTypes: true })) {
        expect(sessionDir.isDirectory()).toBe(true);
        expect(readdirSync(join(root, project.name, sessionDir.name))).toEqual([artifact]);
        found.add(join(root, project.name, sessionDir.name, artifact));
      }
    }
    expect(found).toEqual(expectedPaths);
    for (const cwd of Object.keys(EXPECTED_PROJECT_DIRS)) {
      if (generated.some((session) => session.header.cwd === cwd)) expect(readdirSync(root)).toContain(EXPECTED_PROJECT_DIRS[cwd]);
    }
  });

  it('frames the header alone and each later batch as whole lines, with chunk runs packed into rows', async () => {
    const long = generated.find((session) => session.long) as GeneratedSession;
    const cwd = long.header.cwd;
    const project =
      cwd === undefined ? '_no-cwd' : (readdirSync(root).find((name) => readdirSync(join(root, name)).includes(long.header.id)) as string);
    const bytes = readFileSync(join(root, project, long.header.id, compression === 'zstd' ? 'session.jsonl.zstd' : 'session.jsonl'));
    let text: string;
    if (compression === 'zstd') {
      await initZstd();
      const frames = scanZstdFrames(bytes);
      expect(frames.tornStart).toBeUndefined();
      const plains = frames.frames.map((frame) =>
        Buffer.from(decodeCompleteFrame(bytes.subarray(frame.start, frame.end), frame)).toString('utf8'),
      );
      // Frame 0 is exactly the header line and its LF (§9.9 step 1).
      expect(plains[0]?.indexOf('\n')).toBe((plains[0]?.length ?? 0) - 1);
      expect(JSON.parse(plains[0] as string)).toMatchObject({ type: 'session', id: long.header.id });
      expect(plains.length).toBeGreaterThan(2);
      for (const plain of plains) expect(plain.endsWith('\n')).toBe(true);
      text = plains.join('');
    } else {
      text = bytes.toString('utf8');
    }
    const lines = text.split('\n').filter((line) => line !== '');
    expect(lines.some((line) => (JSON.parse(line) as { type: string }).type === 'text-chunks')).toBe(true);
    expect(lines.some((line) => (JSON.parse(line) as { type: string }).type === 'compaction/summary')).toBe(true);
  });
});
