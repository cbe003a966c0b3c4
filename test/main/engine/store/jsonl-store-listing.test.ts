// SESSION-REFERENCE.md §15 items 89 and 90: the listing matrix (SESSION-LOG.md §9.13), lookup by id
// (§9.14) and the identity rule (§9.5), on temporary roots of both encodings. dsh's all-or-nothing failures are
// pinned with `listing: 'strict'`; beside each one, the default tolerant listing skips only the damaged entry and
// reports it as a problem, and lookups of other ids are unaffected.
import { appendFile, mkdir, readdir, readFile, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionHeader } from '../../../../src/protocol/events.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { ListingMode } from '../../../../src/main/engine/store/store-config.js';
import { storedFrame, utf8Bytes } from '../../../support/zstd-stored-frame.js';
import {
  EventSequence,
  decodeFrames,
  expectRejection,
  json,
  makeTempDir,
  removeTempDir,
  sessionHeader,
  writeArtifactFile,
} from './store-test-builders.js';

let root: string;
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(root);
});

const ENCODINGS = [
  { compression: 'none' as const, file: 'session.jsonl', opposite: 'session.jsonl.zstd', oppositeSuffix: '.jsonl.zstd' },
  { compression: 'zstd' as const, file: 'session.jsonl.zstd', opposite: 'session.jsonl', oppositeSuffix: '.jsonl' },
];

/**
 * A second log of `id` under `cwd`, placed by hand: the store refuses to create an id that already exists anywhere
 * in the root (SESSION-LOG.md §9.16 rule 1), so a duplicate can only come from outside it.
 */
async function createTwin(compression: 'none' | 'zstd', id: string, cwd: string): Promise<string> {
  const scratch = await makeTempDir();
  try {
    const other = await JsonlSessionStore.open({ root: scratch, compression });
    const path = await other.create(sessionHeader(id, cwd), new EventSequence().closedTurn(1, `prompt of ${id}`, ['x']));
    const target = join(root, relative(scratch, path));
    await writeArtifactFile(target, await readFile(path));
    return target;
  } finally {
    await removeTempDir(scratch);
  }
}

function ids(headers: readonly SessionHeader[]): string[] {
  return headers.map((header) => header.id).sort();
}

describe.each(ENCODINGS)('listing matrix ($compression)', ({ compression, file, opposite, oppositeSuffix }) => {
  async function openStore(listing?: ListingMode): Promise<JsonlSessionStore> {
    return JsonlSessionStore.open({ root, compression, ...(listing === undefined ? {} : { listing }) });
  }

  async function createSession(store: JsonlSessionStore, id: string, cwd?: string): Promise<string> {
    return store.create(sessionHeader(id, cwd), new EventSequence().closedTurn(1, `prompt of ${id}`, ['x']));
  }

  it('lists every session of every project directory, no-cwd sessions included', async () => {
    const store = await openStore();
    await createSession(store, 'a', '/home/u/one');
    await createSession(store, 'b', '/home/u/one');
    await createSession(store, 'c', '/home/u/two');
    await createSession(store, 'd');
    expect(ids(await store.list())).toEqual(['a', 'b', 'c', 'd']);
  });

  it('skips a session directory without session<suffix> (empty, or holding other files)', async () => {
    const store = await openStore();
    await createSession(store, 'kept', '/p');
    await mkdir(join(root, '--p--', 'empty-dir'), { recursive: true });
    await writeArtifactFile(join(root, '--p--', 'other-files', 'notes.txt'), 'hello');
    await writeArtifactFile(join(root, '--p--', 'other-files', 'session.json'), '{}');
    expect(ids(await store.list())).toEqual(['kept']);
  });

  it('skips an empty artifact', async () => {
    const store = await openStore();
    await createSession(store, 'kept', '/p');
    await writeArtifactFile(join(root, '--p--', 'empty', file), '');
    expect(ids(await store.list())).toEqual(['kept']);
  });

  it('skips a half-written header (no LF yet / frame 0 cut short)', async () => {
    const store = await openStore();
    await createSession(store, 'kept', '/p');
    const line = '{"type":"session","version":0,"id":"half","createdAt":5,"cwd":"/p","delegationDepth":0}\n';
    const full = compression === 'none' ? utf8Bytes(line) : storedFrame(utf8Bytes(line), [line.length]);
    await writeArtifactFile(join(root, '--p--', 'half', file), full.subarray(0, full.length - 2));
    expect(ids(await store.list())).toEqual(['kept']);
  });

  it('strict: a flat transcript file in a project directory fails the listing with the flat-layout text', async () => {
    const store = await openStore('strict');
    await createSession(store, 'kept', '/p');
    for (const flatName of ['kept.jsonl', 'other.jsonl.zstd']) {
      const flat = join(root, '--p--', flatName);
      await writeFile(flat, '');
      await expectRejection(store.list(), {
        message: `session artifact "${flat}" uses the unsupported flat-file layout; use a separate root or move it into a project/session directory before loading`,
        code: 'SESSION_STORE_LAYOUT',
        name: 'Error',
      });
      await rm(flat);
    }
    expect(ids(await store.list())).toEqual(['kept']);
  });

  it('a flat <segment>.jsonl / .jsonl.zstd next to the session fails lookup by id with the flat-layout text', async () => {
    const store = await openStore();
    await createSession(store, 'a/b', '/p');
    const flat = join(root, '--p--', 'a~002Fb.jsonl');
    await writeFile(flat, '');
    await expectRejection(store.inspect(asSessionId('a/b')), {
      message: `session artifact "${flat}" uses the unsupported flat-file layout; use a separate root or move it into a project/session directory before loading`,
    });
  });

  it('ignores plain files directly under the root', async () => {
    const store = await openStore();
    await createSession(store, 'kept', '/p');
    // The name earlier builds gave the title index inside the root: such a leftover file is ignored like any other.
    await writeFile(join(root, '.sessionctx-title-index.v1'), 'not a directory');
    await writeFile(join(root, 'stray.jsonl'), 'garbage');
    await writeFile(join(root, file), 'garbage');
    expect(ids(await store.list())).toEqual(['kept']);
  });

  it('strict: the same id under two project directories fails listing and lookup with the duplicate text', async () => {
    const store = await openStore('strict');
    await createSession(store, 'twin', '/one');
    await createTwin(compression, 'twin', '/two');
    await createSession(store, 'single', '/two');
    const duplicate = {
      message: 'duplicate JSONL session id "twin" appears in multiple project directories',
      code: 'SESSION_STORE_LAYOUT',
      name: 'Error',
    };
    await expectRejection(store.list(), duplicate);
    await expectRejection(store.inspect(asSessionId('twin')), duplicate);
    expect((await store.inspect(asSessionId('single'))).meta.id).toBe('single');
  });

  it('strict: an opposite-suffix artifact fails listing with the encoding text; the failure is memoised per store instance', async () => {
    const first = await openStore('strict');
    await createSession(first, 'kept', '/p');
    const stray = join(root, '--q--', 'stray', opposite);
    await writeArtifactFile(stray, '');
    const mismatch = {
      message: `session artifact "${stray}" uses ${oppositeSuffix}, but this backend is configured for compression "${compression}"; use a separate root or select the matching compression mode`,
      code: 'SESSION_STORE_LAYOUT',
      name: 'Error',
    };
    await expectRejection(first.list(), mismatch);
    await rm(stray);
    // Memoised: the same instance keeps failing with the same text after the file is gone.
    await expectRejection(first.list(), mismatch);
    expect(ids(await (await openStore('strict')).list())).toEqual(['kept']);
  });

  it('an opposite-suffix artifact beside the right one fails lookup by id and create with the encoding text', async () => {
    const store = await openStore();
    await createSession(store, 'both', '/p');
    const stray = join(root, '--p--', 'both', opposite);
    await writeFile(stray, '');
    const mismatch = {
      message: `session artifact "${stray}" uses ${oppositeSuffix}, but this backend is configured for compression "${compression}"; use a separate root or select the matching compression mode`,
    };
    await expectRejection(store.inspect(asSessionId('both')), mismatch);
    const other = join(root, '--p--', 'fresh', opposite);
    await writeArtifactFile(other, '');
    await expectRejection(store.create(sessionHeader('fresh', '/p')), {
      message: `session artifact "${other}" uses ${oppositeSuffix}, but this backend is configured for compression "${compression}"; use a separate root or select the matching compression mode`,
    });
  });

  it('strict: a corrupt zstd magic or a non-header frame 0 fails the listing (zstd only)', async () => {
    if (compression !== 'zstd') return;
    const store = await openStore('strict');
    await createSession(store, 'kept', '/p');
    const bad = join(root, '--p--', 'bad', file);
    await writeArtifactFile(bad, Uint8Array.from([0x27, 0xb5, 0x2f, 0xfd, 0x04, 0x38, 1, 0, 0]));
    await expectRejection(store.list(), { message: 'corrupt Zstandard session log: invalid frame magic at byte 0' });
    const twoLines = utf8Bytes('{"type":"session","version":0,"id":"bad","createdAt":5,"cwd":"/p","delegationDepth":0}\n{}\n');
    await writeFile(bad, storedFrame(twoLines, [twoLines.length]));
    await expectRejection(store.list(), { message: 'corrupt Zstandard session log: first frame is not exactly one header line' });
  });

  it('strict: a bad header frame checksum fails the listing (zstd only); inspection names the frame', async () => {
    if (compression !== 'zstd') return;
    const store = await openStore('strict');
    const path = await createSession(store, 'flipped', '/p');
    const bytes = await readFile(path);
    const [headerFrame] = await decodeFrames(bytes);
    // The last byte of frame 0 is the top byte of its content checksum.
    const last = (headerFrame?.end as number) - 1;
    bytes[last] = (bytes[last] as number) ^ 0x01;
    await writeFile(path, bytes);
    await expectRejection(store.list(), {
      message: 'corrupt Zstandard session log: header frame failed validation',
      code: 'SESSION_LOG_CORRUPT',
    });
    await expectRejection(store.inspect(asSessionId('flipped')), {
      message: 'corrupt Zstandard session log: frame at byte 0 failed validation',
    });
  });
});

describe.each(ENCODINGS)('identity rule ($compression)', ({ compression, file }) => {
  async function openStore(listing?: ListingMode): Promise<JsonlSessionStore> {
    return JsonlSessionStore.open({ root, compression, ...(listing === undefined ? {} : { listing }) });
  }

  it('strict: an artifact moved to another project directory fails listing and inspection with the identity text', async () => {
    const store = await openStore('strict');
    const original = await store.create(sessionHeader('moved', '/home/u/app'), new EventSequence().closedTurn(1, 'hi', ['a']));
    expect(original).toBe(join(root, '--home-u-app--', 'moved', file));
    await mkdir(join(root, '--elsewhere--'));
    await rename(join(root, '--home-u-app--', 'moved'), join(root, '--elsewhere--', 'moved'));
    const moved = join(root, '--elsewhere--', 'moved', file);
    const identity = {
      message: `corrupt session log "${moved}": header id "moved" and cwd identify "${original}"`,
      code: 'SESSION_LOG_CORRUPT',
      name: 'Error',
    };
    await expectRejection(store.list(), identity);
    await expectRejection(store.inspect(asSessionId('moved')), identity);
  });

  it('strict: an artifact under another id directory: by id → the requested-id text; listing → the identity text', async () => {
    const store = await openStore('strict');
    const realPath = await store.create(sessionHeader('real', '/p'), new EventSequence().closedTurn(1, 'hi', ['a']));
    await mkdir(join(root, '--p--', 'alias'));
    await rename(realPath, join(root, '--p--', 'alias', file));
    await rm(join(root, '--p--', 'real'), { recursive: true });
    const aliasPath = join(root, '--p--', 'alias', file);
    await expectRejection(store.inspect(asSessionId('alias')), {
      message: `corrupt session log "${aliasPath}": requested id "alias" does not match header id "real"`,
      code: 'SESSION_LOG_CORRUPT',
    });
    await expectRejection(store.list(), { message: `corrupt session log "${aliasPath}": header id "real" and cwd identify "${realPath}"` });
  });

  it('strict: a header whose id or cwd is empty cannot name a storage path', async () => {
    const store = await openStore('strict');
    const headerLines = [
      '{"type":"session","version":0,"id":"","createdAt":5,"cwd":"/p","delegationDepth":0}',
      '{"type":"session","version":0,"id":"x","createdAt":5,"cwd":"","delegationDepth":0}',
    ];
    for (const line of headerLines) {
      const path = join(root, '--p--', 'x', file);
      const bytes = compression === 'none' ? utf8Bytes(`${line}\n`) : storedFrame(utf8Bytes(`${line}\n`), [line.length + 1]);
      await writeArtifactFile(path, bytes);
      await expectRejection(store.list(), {
        message: `corrupt session log "${path}": header id cannot name a storage path`,
        code: 'SESSION_LOG_CORRUPT',
      });
    }
  });

  it('appended batches leave the listed header unchanged', async () => {
    const store = await openStore();
    const header = sessionHeader('grow', '/p');
    const log = new EventSequence();
    await store.create(header, log.closedTurn(1, 'one', ['a']));
    await store.append(header, log.closedTurn(2, 'two', ['b', 'c', 'd']));
    expect(json(await store.list())).toBe(`[{"version":0,"id":"grow","createdAt":${header.createdAt},"cwd":"/p","delegationDepth":0}]`);
  });
});

describe.each(ENCODINGS)('tolerant listing matrix ($compression)', ({ compression, file, opposite, oppositeSuffix }) => {
  async function openStore(): Promise<JsonlSessionStore> {
    return JsonlSessionStore.open({ root, compression });
  }

  async function createSession(store: JsonlSessionStore, id: string, cwd?: string): Promise<string> {
    return store.create(sessionHeader(id, cwd), new EventSequence().closedTurn(1, `prompt of ${id}`, ['x']));
  }

  /** inspect and inspectTitle of one id reject alike (the title lookup must not bypass the lookup by id). */
  async function expectLookupFailure(store: JsonlSessionStore, id: string, message: string): Promise<void> {
    await expectRejection(store.inspect(asSessionId(id)), { message });
    await expectRejection(store.inspectTitle(asSessionId(id)), { message });
  }

  const mismatchText = (path: string): string =>
    `session artifact "${path}" uses ${oppositeSuffix}, but this backend is configured for compression "${compression}"; use a separate root or select the matching compression mode`;
  const flatText = (path: string): string =>
    `session artifact "${path}" uses the unsupported flat-file layout; use a separate root or move it into a project/session directory before loading`;

  it('is the default; a healthy root reports no problems', async () => {
    const store = await openStore();
    expect(store.config.listing).toBe('tolerant');
    await createSession(store, 'a', '/p');
    await createSession(store, 'b');
    const report = await store.listReport();
    expect(ids(report.headers)).toEqual(['a', 'b']);
    expect(report.problems).toEqual([]);
    expect(ids(await store.list())).toEqual(['a', 'b']);
  });

  it('a flat transcript file is reported and the rest listed; only a lookup of that very id fails', async () => {
    const store = await openStore();
    await createSession(store, 'kept', '/p');
    await createSession(store, 'other', '/p');
    const flat = join(root, '--p--', 'kept.jsonl');
    const flatZstd = join(root, '--p--', 'x.jsonl.zstd');
    await writeFile(flat, '');
    await writeFile(flatZstd, '');
    const report = await store.listReport();
    expect(ids(report.headers)).toEqual(['kept', 'other']);
    expect(report.problems).toEqual([
      { path: flat, code: 'SESSION_STORE_FLAT_LAYOUT', message: flatText(flat) },
      { path: flatZstd, code: 'SESSION_STORE_FLAT_LAYOUT', message: flatText(flatZstd) },
    ]);
    // §9.14 looks for `<segment>.jsonl` of the requested id only: that id fails, every other id is found.
    await expectLookupFailure(store, 'kept', flatText(flat));
    expect((await store.inspect(asSessionId('other'))).meta.id).toBe('other');
    expect((await store.inspectTitle(asSessionId('other'))).meta.id).toBe('other');
  });

  it('an id found twice: every artifact of it is reported, none listed, its lookup fails; others are unaffected', async () => {
    const store = await openStore();
    const one = await createSession(store, 'twin', '/one');
    const two = await createTwin(compression, 'twin', '/two');
    await createSession(store, 'single', '/two');
    const report = await store.listReport();
    expect(ids(report.headers)).toEqual(['single']);
    const duplicate = 'duplicate JSONL session id "twin" appears in multiple project directories';
    expect(report.problems).toEqual(
      [
        { path: one, code: 'SESSION_STORE_DUPLICATE_ID', message: duplicate },
        { path: two, code: 'SESSION_STORE_DUPLICATE_ID', message: duplicate },
      ].sort((a, b) => (a.path < b.path ? -1 : 1)),
    );
    await expectLookupFailure(store, 'twin', duplicate);
    expect((await store.inspect(asSessionId('single'))).meta.id).toBe('single');
  });

  it('an opposite-encoding artifact skips its own session directory only, and nothing is memoised', async () => {
    const store = await openStore();
    await createSession(store, 'kept', '/p');
    await createSession(store, 'both', '/p');
    const beside = join(root, '--p--', 'both', opposite);
    await writeFile(beside, '');
    const stray = join(root, '--q--', 'stray', opposite);
    await writeArtifactFile(stray, '');
    const report = await store.listReport();
    expect(ids(report.headers)).toEqual(['kept']);
    expect(report.problems).toEqual([
      { path: beside, code: 'SESSION_STORE_MIXED_ENCODING', message: mismatchText(beside) },
      { path: stray, code: 'SESSION_STORE_MIXED_ENCODING', message: mismatchText(stray) },
    ]);
    await expectLookupFailure(store, 'both', mismatchText(beside));
    expect((await store.inspect(asSessionId('kept'))).meta.id).toBe('kept');
    await rm(beside);
    await rm(stray);
    // The same instance: the next listing sees the repaired root.
    expect(await store.listReport().then((again) => [ids(again.headers), again.problems])).toEqual([['both', 'kept'], []]);
  });

  it('a corrupt zstd magic, a non-header frame 0 or a bad header checksum is a corrupt header (zstd only)', async () => {
    if (compression !== 'zstd') return;
    const store = await openStore();
    await createSession(store, 'kept', '/p');
    const badMagic = join(root, '--p--', 'magic', file);
    await writeArtifactFile(badMagic, Uint8Array.from([0x27, 0xb5, 0x2f, 0xfd, 0x04, 0x38, 1, 0, 0]));
    const twoLines = join(root, '--p--', 'two-lines', file);
    const text = utf8Bytes('{"type":"session","version":0,"id":"two-lines","createdAt":5,"cwd":"/p","delegationDepth":0}\n{}\n');
    await writeArtifactFile(twoLines, storedFrame(text, [text.length]));
    const flipped = await createSession(store, 'flipped', '/p');
    const bytes = await readFile(flipped);
    const [headerFrame] = await decodeFrames(bytes);
    const last = (headerFrame?.end as number) - 1;
    bytes[last] = (bytes[last] as number) ^ 0x01;
    await writeFile(flipped, bytes);
    const report = await store.listReport();
    expect(ids(report.headers)).toEqual(['kept']);
    expect(report.problems).toEqual([
      { path: flipped, code: 'SESSION_STORE_CORRUPT_HEADER', message: 'corrupt Zstandard session log: header frame failed validation' },
      { path: badMagic, code: 'SESSION_STORE_CORRUPT_HEADER', message: 'corrupt Zstandard session log: invalid frame magic at byte 0' },
      {
        path: twoLines,
        code: 'SESSION_STORE_CORRUPT_HEADER',
        message: 'corrupt Zstandard session log: first frame is not exactly one header line',
      },
    ]);
    // The damaged session's own inspection still fails with its own error.
    await expectRejection(store.inspect(asSessionId('flipped')), {
      message: 'corrupt Zstandard session log: frame at byte 0 failed validation',
      code: 'SESSION_LOG_CORRUPT',
    });
  });

  it('a misplaced artifact and an unnameable header are reported with the identity texts', async () => {
    const store = await openStore();
    const original = await createSession(store, 'moved', '/home/u/app');
    await createSession(store, 'kept', '/p');
    await mkdir(join(root, '--elsewhere--'));
    await rename(join(root, '--home-u-app--', 'moved'), join(root, '--elsewhere--', 'moved'));
    const moved = join(root, '--elsewhere--', 'moved', file);
    const line = '{"type":"session","version":0,"id":"","createdAt":5,"cwd":"/p","delegationDepth":0}';
    const unnameable = join(root, '--p--', 'x', file);
    await writeArtifactFile(
      unnameable,
      compression === 'none' ? utf8Bytes(`${line}\n`) : storedFrame(utf8Bytes(`${line}\n`), [line.length + 1]),
    );
    const report = await store.listReport();
    expect(ids(report.headers)).toEqual(['kept']);
    expect(report.problems).toEqual([
      {
        path: moved,
        code: 'SESSION_STORE_MISPLACED_ARTIFACT',
        message: `corrupt session log "${moved}": header id "moved" and cwd identify "${original}"`,
      },
      {
        path: unnameable,
        code: 'SESSION_STORE_UNNAMEABLE_HEADER',
        message: `corrupt session log "${unnameable}": header id cannot name a storage path`,
      },
    ]);
  });
});

describe('lookup by id (§9.14) over many project directories', () => {
  it('throws the failure of the first project directory in directory order, whatever the others hold, and finds a lone artifact', async () => {
    // More project directories than the lookup searches at once, several of them failing for the id in different
    // ways: a lookup one project at a time throws at the first in directory order, and so must the concurrent one.
    const segment = 'wanted';
    for (let index = 0; index < 90; index += 1) await mkdir(join(root, `project-${index}`), { recursive: true });
    const failing = new Map<string, string>();
    for (const index of [71, 23, 58, 4, 86]) {
      const project = join(root, `project-${index}`);
      if (index % 2 === 0) {
        await writeFile(join(project, `${segment}.jsonl`), '');
        failing.set(`project-${index}`, 'flat-file layout');
      } else {
        await mkdir(join(project, segment), { recursive: true });
        await writeFile(join(project, segment, 'session.jsonl.zstd'), '');
        failing.set(`project-${index}`, 'session.jsonl.zstd');
      }
    }
    const order = (await readdir(root)).filter((name) => name.startsWith('project-'));
    const first = order.find((name) => failing.has(name)) as string;
    const store = await JsonlSessionStore.open({ root, compression: 'none' });
    const error = (await store.locate(asSessionId(segment)).catch((caught: unknown) => caught)) as Error;
    expect(error.message).toContain(join(root, first));
    expect(error.message).toContain(failing.get(first));
    // With the failures gone, the one artifact of another id is found, and an id nobody has is absent.
    const path = await store.create(sessionHeader('lone', '/somewhere'));
    expect(await store.locate(asSessionId('lone'))).toBe(path);
    expect(await store.locate(asSessionId('nobody'))).toBeUndefined();
  });
});

describe('abort signals', () => {
  it('a pre-aborted list, inspect or locate rejects with the signal reason', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'none' });
    await store.create(sessionHeader('s', '/p'));
    const controller = new AbortController();
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(store.list(controller.signal)).rejects.toBe(reason);
    await expect(store.inspect(asSessionId('s'), controller.signal)).rejects.toBe(reason);
    await expect(store.locate(asSessionId('s'), controller.signal)).rejects.toBe(reason);
  });

  it('tolerates a torn raw tail in listing: only the header is read', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'none' });
    const path = await store.create(sessionHeader('t', '/p'), new EventSequence().closedTurn(1, 'x', ['a']));
    await appendFile(path, '{"type":"turn/st');
    expect(ids(await store.list())).toEqual(['t']);
    await truncate(path, 10);
    expect(ids(await store.list())).toEqual([]);
  });
});
