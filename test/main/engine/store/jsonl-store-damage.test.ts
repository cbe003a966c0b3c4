/**
 * Damage stays local (issue 11 item 3): on a copy of the dsh-small roots with one corrupt header, a FIFO, a
 * directory, a socket and a dangling link in place of logs and one unreadable project directory, the tolerant
 * listing lists every other session and reports each damaged entry once by path with a stable code; lookups of
 * healthy ids are unaffected and each damaged id fails with its own artifact's typed error; strict mode fails as
 * dsh does. Non-regular files are refused without blocking, so every test here has a short timeout: a read that
 * opened the FIFO would hang instead of failing.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionLogError } from '../../../../src/protocol/errors.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionHeader } from '../../../../src/protocol/events.js';
import { InThreadTaskRunner } from '../../../../src/main/engine/pool/in-thread-runner.js';
import { PooledSessionStorage } from '../../../../src/main/engine/pool/pooled-storage.js';
import { stableRead } from '../../../../src/io/file-revision.js';
import { readListedHeader } from '../../../../src/main/engine/store/header-reader.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { ListingProblem } from '../../../../src/protocol/listing-problem.js';
import type { ListingMode } from '../../../../src/main/engine/store/store-config.js';
import { readCapturedArtifact } from '../../../../src/workers/tasks/artifact-bytes.js';
import {
  AccessDenial,
  DAMAGED,
  HEALTHY_IDS,
  HIDDEN_IDS,
  RUNNING_AS_ROOT,
  makeDamagedRoot,
  releaseFifoReaders,
  type DamagedRoot,
} from './damaged-root-builders.js';
import { EventSequence, expectRejection, makeTempDir, removeTempDir, sessionHeader } from './store-test-builders.js';

/** Generous for a listing of 14 small logs, far too short for a read that waits on a FIFO writer. */
const QUICK = 15_000;

let damaged: DamagedRoot | undefined;
afterEach(async () => {
  await damaged?.cleanup();
  damaged = undefined;
});

async function damagedStore(
  compression: 'none' | 'zstd',
  listing?: ListingMode,
  damage?: Parameters<typeof makeDamagedRoot>[1],
): Promise<{ store: JsonlSessionStore; root: DamagedRoot }> {
  damaged = await makeDamagedRoot(compression, damage);
  const store = await JsonlSessionStore.open({ root: damaged.root, compression, ...(listing === undefined ? {} : { listing }) });
  return { store, root: damaged };
}

function sortedIds(headers: readonly SessionHeader[]): string[] {
  return headers.map((header) => header.id as string).sort();
}

function byPath(problems: ListingProblem[]): ListingProblem[] {
  return [...problems].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

const notAFile = (path: string, kind: string): string => `session store: "${path}" is ${kind}, not a regular file`;

describe.each(['none', 'zstd'] as const)('a damaged fixture root (%s)', (compression) => {
  const corruptHeaderText =
    compression === 'zstd'
      ? 'corrupt Zstandard session log: header frame failed validation'
      : 'corrupt session log: header line is not valid JSON';

  function expectedProblems(root: DamagedRoot): ListingProblem[] {
    const at = root.artifact;
    return byPath([
      { path: at(DAMAGED.corruptHeader), code: 'SESSION_STORE_CORRUPT_HEADER', message: corruptHeaderText },
      { path: at(DAMAGED.fifo), code: 'SESSION_STORE_NOT_A_FILE', message: notAFile(at(DAMAGED.fifo), 'a FIFO') },
      { path: at(DAMAGED.directory), code: 'SESSION_STORE_NOT_A_FILE', message: notAFile(at(DAMAGED.directory), 'a directory') },
      { path: at(DAMAGED.socket), code: 'SESSION_STORE_NOT_A_FILE', message: notAFile(at(DAMAGED.socket), 'a socket') },
      {
        path: at(DAMAGED.brokenLink),
        code: 'SESSION_STORE_BROKEN_LINK',
        message: `session store: "${at(DAMAGED.brokenLink)}" is a symbolic link to a missing file`,
      },
      {
        path: root.unreadableProject,
        code: 'SESSION_STORE_ACCESS_DENIED',
        message: `session store: cannot list directory "${root.unreadableProject}": EACCES: permission denied, scandir '${root.unreadableProject}'`,
      },
    ]);
  }

  it(
    'tolerant: every healthy session is listed and each damaged entry is reported once, by path, with its code',
    async () => {
      const { store, root } = await damagedStore(compression);
      const report = await store.listReport();
      expect(sortedIds(report.headers)).toEqual([...HEALTHY_IDS]);
      expect(report.problems).toEqual(expectedProblems(root));
      // list() is the report's headers; a second listing (header cache warm) reports the same.
      expect(sortedIds(await store.list())).toEqual([...HEALTHY_IDS]);
      expect((await store.listReport()).problems).toEqual(expectedProblems(root));
    },
    QUICK,
  );

  it(
    'tolerant: healthy ids are looked up and inspected as usual; each damaged id fails with its own typed error',
    async () => {
      const { store, root } = await damagedStore(compression);
      for (const id of HEALTHY_IDS) expect((await store.inspect(asSessionId(id))).meta.id).toBe(id);
      const at = root.artifact;
      await expectRejection(store.inspect(asSessionId(DAMAGED.fifo.id)), {
        message: notAFile(at(DAMAGED.fifo), 'a FIFO'),
        code: 'SESSION_STORE_NOT_A_FILE',
      });
      await expectRejection(store.inspect(asSessionId(DAMAGED.directory.id)), {
        message: notAFile(at(DAMAGED.directory), 'a directory'),
        code: 'SESSION_STORE_NOT_A_FILE',
      });
      await expectRejection(store.inspect(asSessionId(DAMAGED.socket.id)), {
        message: notAFile(at(DAMAGED.socket), 'a socket'),
        code: 'SESSION_STORE_NOT_A_FILE',
      });
      await expectRejection(store.inspect(asSessionId(DAMAGED.corruptHeader.id)), {
        message:
          compression === 'zstd'
            ? 'corrupt Zstandard session log: frame at byte 0 failed validation'
            : 'corrupt session log: header line is not valid JSON',
        code: 'SESSION_LOG_CORRUPT',
      });
      // A dangling link is no artifact (dsh: missing); an id inside the unreadable project cannot be found.
      const notFound = (id: string) => ({ message: `session "${id}" not found`, code: 'SESSION_QUERY_SESSION_NOT_FOUND', name: 'Error' });
      await expectRejection(store.inspect(asSessionId(DAMAGED.brokenLink.id)), notFound(DAMAGED.brokenLink.id));
      for (const id of HIDDEN_IDS) await expectRejection(store.inspect(asSessionId(id)), notFound(id));
    },
    QUICK,
  );

  it(
    'tolerant: title observations (title index) refuse the FIFO without blocking and answer healthy ids',
    async () => {
      const { store, root } = await damagedStore(compression);
      await store.list();
      await expectRejection(store.inspectTitle(asSessionId(DAMAGED.fifo.id)), {
        message: notAFile(root.artifact(DAMAGED.fifo), 'a FIFO'),
        code: 'SESSION_STORE_NOT_A_FILE',
      });
      for (const id of HEALTHY_IDS) expect((await store.inspectTitle(asSessionId(id))).meta.id).toBe(id);
      await store.flushTitleIndex();
    },
    QUICK,
  );

  it(
    'the worker-side read (inspect task) refuses the FIFO, the directory and the socket without blocking',
    async () => {
      const { store, root } = await damagedStore(compression);
      const pooled = new PooledSessionStorage(store, new InThreadTaskRunner());
      for (const [entry, kind] of [
        [DAMAGED.fifo, 'a FIFO'],
        [DAMAGED.directory, 'a directory'],
        [DAMAGED.socket, 'a socket'],
      ] as const) {
        await expectRejection(pooled.inspect(asSessionId(entry.id)), {
          message: notAFile(root.artifact(entry), kind),
          code: 'SESSION_STORE_NOT_A_FILE',
        });
      }
      const healthy = HEALTHY_IDS[0];
      expect((await pooled.inspect(asSessionId(healthy))).meta.id).toBe(healthy);
      expect((await pooled.listReport()).problems).toEqual(expectedProblems(root));
    },
    QUICK,
  );

  it(
    'strict: the same root fails the listing as a whole (dsh), and a lookup meets the unreadable project directory',
    async () => {
      const { store, root } = await damagedStore(compression, 'strict');
      const error = await store.list().then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(SessionLogError);
      // Which damaged entry comes first depends on directory order; every candidate is one of the reported ones.
      const messages = expectedProblems(root).map((problem) => problem.message);
      expect(messages).toContain((error as Error).message);
      await expectRejection(store.inspect(asSessionId(HEALTHY_IDS[0])), {
        message: `session store: cannot stat "${join(root.unreadableProject, `${HEALTHY_IDS[0]}.jsonl`)}": EACCES: permission denied, stat '${join(root.unreadableProject, `${HEALTHY_IDS[0]}.jsonl`)}'`,
        code: 'SESSION_STORE_ACCESS_DENIED',
      });
    },
    QUICK,
  );

  it(
    'strict: each kind of damage alone fails the listing with its own text, or is skipped where dsh skips it',
    async () => {
      const only = (key: keyof typeof DAMAGED | 'unreadableProject') => ({
        corruptHeader: key === 'corruptHeader',
        fifo: key === 'fifo',
        directory: key === 'directory',
        socket: key === 'socket',
        brokenLink: key === 'brokenLink',
        unreadableProject: key === 'unreadableProject',
      });
      const all = [...HEALTHY_IDS, ...HIDDEN_IDS, ...Object.values(DAMAGED).map((entry) => entry.id)].sort();
      const without = (...ids: string[]): string[] => all.filter((id) => !ids.includes(id));

      let { store, root } = await damagedStore(compression, 'strict', only('corruptHeader'));
      if (compression === 'zstd') {
        await expectRejection(store.list(), { message: corruptHeaderText, code: 'SESSION_LOG_CORRUPT', name: 'Error' });
      } else {
        // dsh skips a raw first line that is not JSON without a word.
        expect(sortedIds(await store.list())).toEqual(without(DAMAGED.corruptHeader.id));
      }
      await root.cleanup();
      damaged = undefined;

      ({ store, root } = await damagedStore(compression, 'strict', only('fifo')));
      await expectRejection(store.list(), { message: notAFile(root.artifact(DAMAGED.fifo), 'a FIFO'), code: 'SESSION_STORE_NOT_A_FILE' });
      await root.cleanup();
      damaged = undefined;

      ({ store, root } = await damagedStore(compression, 'strict', only('brokenLink')));
      expect(sortedIds(await store.list())).toEqual(without(DAMAGED.brokenLink.id));
      await root.cleanup();
      damaged = undefined;

      ({ store, root } = await damagedStore(compression, 'strict', only('unreadableProject')));
      await expectRejection(store.list(), {
        message: `session store: cannot list directory "${root.unreadableProject}": EACCES: permission denied, scandir '${root.unreadableProject}'`,
        code: 'SESSION_STORE_ACCESS_DENIED',
      });
    },
    QUICK,
  );

  it(
    'an unreadable artifact (mode 000) is reported as access denied and fails only its own inspection',
    async () => {
      const { store, root } = await damagedStore(compression, undefined, {
        corruptHeader: false,
        fifo: false,
        directory: false,
        socket: false,
        brokenLink: false,
        unreadableProject: false,
      });
      const entry = DAMAGED.fifo;
      const path = root.artifact(entry);
      const denial = new AccessDenial();
      try {
        // Root reads through mode 000, so as root the refusal is the kernel's answer replayed (see damaged-root-builders).
        if (RUNNING_AS_ROOT) denial.denyFile(path);
        else execFileSync('chmod', ['000', path]);
        const report = await store.listReport();
        expect(report.headers).toHaveLength(13);
        const message = `session store: cannot open "${path}": EACCES: permission denied, open '${path}'`;
        expect(report.problems).toEqual([{ path, code: 'SESSION_STORE_ACCESS_DENIED', message }]);
        const error = await expectRejection(store.inspect(asSessionId(entry.id)), { message, code: 'SESSION_STORE_ACCESS_DENIED' });
        expect((error.cause as { code?: unknown }).code).toBe('EACCES');
        expect((await store.inspect(asSessionId(HEALTHY_IDS[1]))).meta.id).toBe(HEALTHY_IDS[1]);
      } finally {
        denial.restore();
        if (!RUNNING_AS_ROOT) execFileSync('chmod', ['600', path]);
      }
    },
    QUICK,
  );
});

describe('non-regular files are refused by every artifact read, at once', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) {
      releaseFifoReaders(join(dir, 'fifo', 'session.jsonl'));
      await removeTempDir(dir);
    }
    dir = undefined;
  });

  it(
    'a FIFO and a directory named session.jsonl: header read, stable read and worker read',
    async () => {
      dir = await makeTempDir();
      const fifo = join(dir, 'fifo', 'session.jsonl');
      await mkdir(join(dir, 'fifo'));
      execFileSync('mkfifo', [fifo]);
      const directory = join(dir, 'dir', 'session.jsonl');
      await mkdir(directory, { recursive: true });
      for (const [path, kind] of [
        [fifo, 'a FIFO'],
        [directory, 'a directory'],
      ] as const) {
        const expected = { message: notAFile(path, kind), code: 'SESSION_STORE_NOT_A_FILE' };
        await expectRejection(readListedHeader(path, 'none'), expected);
        await expectRejection(stableRead(path), expected);
        await expectRejection(
          readCapturedArtifact({ sessionId: 'piped', path, root: dir, compression: 'none' }, new AbortController().signal),
          expected,
        );
      }
    },
    QUICK,
  );

  it(
    'append to a session whose log was replaced by a FIFO fails at once instead of waiting for a reader',
    async () => {
      dir = await makeTempDir();
      const store = await JsonlSessionStore.open({ root: dir, compression: 'none' });
      const header = sessionHeader('piped', '/w');
      const path = await store.create(header, new EventSequence().closedTurn(1, 'hi', ['a']));
      await rm(path);
      execFileSync('mkfifo', [path]);
      try {
        await expectRejection(store.append(header, new EventSequence().closedTurn(1, 'again', ['b'])), {
          message: notAFile(path, 'a FIFO'),
          code: 'SESSION_STORE_NOT_A_FILE',
        });
      } finally {
        releaseFifoReaders(path);
      }
    },
    QUICK,
  );
});
