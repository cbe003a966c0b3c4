// SESSION-REFERENCE.md §15 item 83 through the store: the header line on disk, which first lines listing
// skips, retired header fields, and a v1 header that is listed but whose inspection is refused
// (SESSION-LOG.md §7.4, §9.6, §9.13 step 5).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionFormatUnsupportedError } from '../../../../src/protocol/errors.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { Compression } from '../../../../src/protocol/storage-paths.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { storedFrame, utf8Bytes } from '../../../support/zstd-stored-frame.js';
import {
  EventSequence,
  decodeFrames,
  expectRejection,
  json,
  makeTempDir,
  noiseText,
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
  { compression: 'none' as const, file: 'session.jsonl' },
  { compression: 'zstd' as const, file: 'session.jsonl.zstd' },
];

/** The bytes of a hand-written artifact whose first line is `headerLine` (a stored zstd frame in zstd mode). */
function artifactBytes(compression: Compression, headerLine: string, rest = ''): Uint8Array {
  if (compression === 'none') return utf8Bytes(headerLine + '\n' + rest);
  const header = utf8Bytes(headerLine + '\n');
  const frames = [storedFrame(header, [header.length])];
  if (rest !== '') {
    const batch = utf8Bytes(rest);
    frames.push(storedFrame(batch, [batch.length]));
  }
  return Buffer.concat(frames);
}

describe('the header line the store writes (§9.6)', () => {
  it.each(ENCODINGS)(
    '$compression: every field in writer order, whatever the order of the header object',
    async ({ compression, file }) => {
      const store = await JsonlSessionStore.open({ root, compression });
      const scrambled = {
        agentPreset: 'review',
        delegationDepth: 2,
        origin: 'subagent' as const,
        seedLength: 4,
        parentSession: 'parent-1',
        cwd: '/work/app',
        createdAt: 1767225600000,
        id: asSessionId('child-1'),
        version: 0 as const,
      };
      const path = await store.create(scrambled);
      expect(path).toBe(join(root, '--work-app--', 'child-1', file));
      const expectedLine =
        '{"type":"session","version":0,"id":"child-1","createdAt":1767225600000,"cwd":"/work/app","parentSession":"parent-1","seedLength":4,"origin":"subagent","delegationDepth":2,"agentPreset":"review"}';
      const bytes = await readFile(path);
      if (compression === 'none') {
        expect(bytes.toString('utf8')).toBe(`${expectedLine}\n`);
      } else {
        const frames = await decodeFrames(bytes);
        expect(frames.map((frame) => frame.plaintext)).toEqual([`${expectedLine}\n`]);
      }
      const [listed] = await store.list();
      expect(json(listed)).toBe(
        '{"version":0,"id":"child-1","createdAt":1767225600000,"cwd":"/work/app","parentSession":"parent-1","seedLength":4,"origin":"subagent","delegationDepth":2,"agentPreset":"review"}',
      );
    },
  );

  it.each(ENCODINGS)(
    '$compression: delegationDepth 0 is written for a top-level session and absent fields are omitted',
    async ({ compression }) => {
      const store = await JsonlSessionStore.open({ root, compression });
      const path = await store.create(sessionHeader('abc', '/w', { createdAt: 1767225600000 }));
      const bytes = await readFile(path);
      const text = compression === 'none' ? bytes.toString('utf8') : (await decodeFrames(bytes))[0]?.plaintext;
      expect(text).toBe('{"type":"session","version":0,"id":"abc","createdAt":1767225600000,"cwd":"/w","delegationDepth":0}\n');
      const inspection = await store.inspect(asSessionId('abc'));
      expect(json(inspection.meta)).toBe('{"version":0,"id":"abc","createdAt":1767225600000,"cwd":"/w","delegationDepth":0}');
    },
  );

  it('a header longer than one 8 KiB listing read is still listed (raw and zstd)', async () => {
    for (const { compression } of ENCODINGS) {
      const store = await JsonlSessionStore.open({ root: join(root, compression), compression });
      const agentPreset = noiseText(20_000, 7);
      await store.create(sessionHeader('long', '/w', { agentPreset }));
      const listed = await store.list();
      expect(listed).toHaveLength(1);
      expect(listed[0]?.agentPreset).toBe(agentPreset);
    }
  });
});

describe.each(ENCODINGS)('first lines that listing skips ($compression)', ({ compression, file }) => {
  const goodLine = '{"type":"session","version":0,"id":"good","createdAt":5,"cwd":"/p","delegationDepth":0}';

  async function storeWith(
    id: string,
    headerLine: string,
    rest = '',
    listing?: 'strict' | 'tolerant',
  ): Promise<{ store: JsonlSessionStore; path: string }> {
    await writeArtifactFile(join(root, '--p--', 'good', file), artifactBytes(compression, goodLine));
    const path = join(root, '--p--', id, file);
    await writeArtifactFile(path, artifactBytes(compression, headerLine, rest));
    return { store: await JsonlSessionStore.open({ root, compression, ...(listing === undefined ? {} : { listing }) }), path };
  }

  const goodHeader = '[{"version":0,"id":"good","createdAt":5,"cwd":"/p","delegationDepth":0}]';

  it('a header without delegationDepth is skipped; inspecting it says the first line is not a header', async () => {
    const { store } = await storeWith('nodepth', '{"type":"session","version":0,"id":"nodepth","createdAt":5,"cwd":"/p"}');
    expect(json(await store.list())).toBe(goodHeader);
    await expectRejection(store.inspect(asSessionId('nodepth')), {
      message: 'corrupt session log: first line is not a session header',
      name: 'Error',
    });
  });

  it('a header with createdAt written as -0 is skipped', async () => {
    const line = '{"type":"session","version":0,"id":"negzero","createdAt":-0,"cwd":"/p","delegationDepth":0}';
    const { store, path } = await storeWith('negzero', line);
    const onDisk = compression === 'none' ? await readFile(path, 'utf8') : (await decodeFrames(await readFile(path)))[0]?.plaintext;
    expect(onDisk).toContain('"createdAt":-0,');
    expect(json(await store.list())).toBe(goodHeader);
    await expectRejection(store.inspect(asSessionId('negzero')), { message: 'corrupt session log: first line is not a session header' });
  });

  it('a delegationDepth of -0 or a non-integer is skipped too', async () => {
    const { store } = await storeWith('depth', '{"type":"session","version":0,"id":"depth","createdAt":5,"cwd":"/p","delegationDepth":-0}');
    await writeArtifactFile(
      join(root, '--p--', 'frac', file),
      artifactBytes(compression, '{"type":"session","version":0,"id":"frac","createdAt":5,"cwd":"/p","delegationDepth":1.5}'),
    );
    expect(json(await store.list())).toBe(goodHeader);
  });

  it('a first line that is not JSON is skipped; inspecting it says so', async () => {
    const { store } = await storeWith('notjson', '{"type":"session","version":0,');
    expect(json(await store.list())).toBe(goodHeader);
    await expectRejection(store.inspect(asSessionId('notjson')), {
      message: 'corrupt session log: header line is not valid JSON',
      name: 'Error',
    });
  });

  it('a first line that is JSON but not a session header (an event, an array, null) is skipped', async () => {
    const { store } = await storeWith('event', '{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}');
    await writeArtifactFile(join(root, '--p--', 'array', file), artifactBytes(compression, '[1,2]'));
    await writeArtifactFile(join(root, '--p--', 'null', file), artifactBytes(compression, 'null'));
    expect(json(await store.list())).toBe(goodHeader);
  });

  it('strict: sandboxMode or approvalPolicy in a header fails the whole listing', async () => {
    const { store } = await storeWith(
      'retired',
      '{"type":"session","version":0,"id":"retired","createdAt":5,"cwd":"/p","delegationDepth":0,"sandboxMode":"workspace-write"}',
      '',
      'strict',
    );
    await expectRejection(store.list(), { message: 'session header uses retired policy baseline fields', name: 'Error' });
    await removeTempDir(root);
    const second = await storeWith(
      'retired2',
      '{"type":"session","version":0,"id":"retired2","createdAt":5,"delegationDepth":0,"approvalPolicy":null}',
      '',
      'strict',
    );
    await expectRejection(second.store.list(), { message: 'session header uses retired policy baseline fields' });
  });

  it('tolerant: a header with retired fields is skipped and reported as a corrupt header; the rest is listed', async () => {
    const { store, path } = await storeWith(
      'retired',
      '{"type":"session","version":0,"id":"retired","createdAt":5,"cwd":"/p","delegationDepth":0,"sandboxMode":"workspace-write"}',
    );
    const report = await store.listReport();
    expect(json(report.headers)).toBe(goodHeader);
    expect(report.problems).toEqual([
      { path, code: 'SESSION_STORE_CORRUPT_HEADER', message: 'session header uses retired policy baseline fields' },
    ]);
  });

  it("tolerant: every first line dsh skips silently is reported once with the inspection's text; strict reports none", async () => {
    const { store } = await storeWith('nodepth', '{"type":"session","version":0,"id":"nodepth","createdAt":5,"cwd":"/p"}');
    const notJson = join(root, '--p--', 'notjson', file);
    await writeArtifactFile(notJson, artifactBytes(compression, '{"type":"session","version":0,'));
    const empty = join(root, '--p--', 'empty', file);
    await writeArtifactFile(empty, '');
    const report = await store.listReport();
    expect(json(report.headers)).toBe(goodHeader);
    expect(report.problems).toEqual([
      {
        path: empty,
        code: 'SESSION_STORE_INCOMPLETE_HEADER',
        message: compression === 'zstd' ? 'empty or header-less Zstandard session log' : 'empty or header-less session log',
      },
      {
        path: join(root, '--p--', 'nodepth', file),
        code: 'SESSION_STORE_CORRUPT_HEADER',
        message: 'corrupt session log: first line is not a session header',
      },
      { path: notJson, code: 'SESSION_STORE_CORRUPT_HEADER', message: 'corrupt session log: header line is not valid JSON' },
    ]);
    const strict = await JsonlSessionStore.open({ root, compression, listing: 'strict' });
    expect(await strict.listReport()).toEqual({ headers: report.headers, problems: [] });
  });

  it('a version 1 header is listed, and its inspection is refused with the §7.4 text plus the raw log path', async () => {
    const line = '{"type":"session","version":1,"id":"future","createdAt":5,"cwd":"/p","delegationDepth":0}';
    const { store, path } = await storeWith('future', line, '{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}\n');
    const listed = await store.list();
    expect(json([...listed].sort((a, b) => a.id.localeCompare(b.id)))).toBe(
      '[{"version":1,"id":"future","createdAt":5,"cwd":"/p","delegationDepth":0},{"version":0,"id":"good","createdAt":5,"cwd":"/p","delegationDepth":0}]',
    );
    await expectRejection(store.inspect(asSessionId('future')), {
      message: `session "future" uses log format v1, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it (raw log: ${path})`,
      name: 'SessionFormatUnsupportedError',
      type: SessionFormatUnsupportedError,
    });
  });

  it('a version -1 header is refused with the older-format text', async () => {
    const { store, path } = await storeWith(
      'ancient',
      '{"type":"session","version":-1,"id":"ancient","createdAt":5,"cwd":"/p","delegationDepth":0}',
    );
    expect((await store.list()).map((header) => header.id).sort()).toEqual(['ancient', 'good']);
    await expectRejection(store.inspect(asSessionId('ancient')), {
      message: `session "ancient" uses log format v-1, older than the supported v0, and this build ships no upgrade path for it (raw log: ${path})`,
      name: 'SessionFormatUnsupportedError',
    });
  });
});

describe('a well-formed header read back through the store', () => {
  it.each(ENCODINGS)(
    '$compression: inspect returns the validated header (keys in header order) and the events',
    async ({ compression }) => {
      const store = await JsonlSessionStore.open({ root, compression });
      const log = new EventSequence();
      const events = log.closedTurn(1, 'hello', ['a', 'b']);
      await store.create(
        sessionHeader('sub', '/w', { parentSession: 'root-1', seedLength: 0, origin: 'subagent', delegationDepth: 1 }),
        events,
      );
      const inspection = await store.inspect(asSessionId('sub'));
      expect(json(inspection.meta)).toBe(
        `{"version":0,"id":"sub","createdAt":${1_767_225_600_000 - 1000},"cwd":"/w","parentSession":"root-1","seedLength":0,"origin":"subagent","delegationDepth":1}`,
      );
      expect(json(inspection.events)).toBe(json(events));
    },
  );
});
