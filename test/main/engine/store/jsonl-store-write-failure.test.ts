// SESSION-LOG.md §9.16 rule 2: an append whose write fails leaves the file at its previous size. The
// failure is real, not mocked: a child process runs the store under `ulimit -f` (RLIMIT_FSIZE), so the
// kernel accepts part of the batch (a short write) and then refuses the rest with EFBIG. Node ignores
// SIGXFSZ, so the process survives and sees the errors. The store reports them typed (SESSION_STORE_IO_FAILED,
// the system error as its cause).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectDirName } from '../../../../src/protocol/storage-paths.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionEvent, SessionHeader } from '../../../../src/protocol/events.js';
import type { Compression } from '../../../../src/protocol/storage-paths.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { EventSequence, json, makeTempDir, noiseText, removeTempDir, sessionHeader } from './store-test-builders.js';

let root: string;
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(root);
});

/** The file-size limit of the child, in the 1024-byte units of `ulimit -f`. */
const LIMIT_KIB = 8;

const STORE_MODULE = new URL('../../../../src/main/engine/store/jsonl-store.js', import.meta.url).href;

/** What the child reports about one store call. */
interface ChildOutcome {
  readonly ok: boolean;
  readonly code?: string;
  /** The code of the error's cause (the system error a typed store error wraps). */
  readonly cause?: string;
}

/** Runs `store[operation](header, batch)` in a child process whose files may not grow past {@link LIMIT_KIB} KiB. */
async function runLimited(
  operation: 'append' | 'create',
  compression: Compression,
  header: SessionHeader,
  batch: readonly SessionEvent[],
): Promise<ChildOutcome> {
  // A plain file directly under the root, which listing ignores (§9.2).
  const input = join(root, 'child-input.json');
  await writeFile(input, JSON.stringify({ root, compression, header, batch }));
  const script = `
    import { readFileSync } from 'node:fs';
    const { JsonlSessionStore } = await import(${JSON.stringify(STORE_MODULE)});
    const { root, compression, header, batch } = JSON.parse(readFileSync(process.argv[1], 'utf8'));
    const store = await JsonlSessionStore.open({ root, compression });
    try {
      await store[${JSON.stringify(operation)}](header, batch);
      process.stdout.write(JSON.stringify({ ok: true }));
    } catch (error) {
      process.stdout.write(JSON.stringify({ ok: false, code: error.code, cause: error.cause?.code }));
    }
  `;
  const child = spawnSync(
    '/bin/sh',
    ['-c', `ulimit -f ${LIMIT_KIB} && exec "$0" --input-type=module -e "$1" "$2"`, process.execPath, script, input],
    {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    },
  );
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  return JSON.parse(child.stdout) as ChildOutcome;
}

/** A closed turn whose text makes its batch far larger than the child's file-size limit. */
function bigTurn(log: EventSequence, turn: number): SessionEvent[] {
  return log.closedTurn(turn, noiseText(6000, turn), [noiseText(9000, turn + 100), noiseText(9000, turn + 200)]);
}

describe.skipIf(!existsSync('/bin/sh'))('a failed write leaves no partial batch (§9.16 rule 2)', () => {
  it.each(['none', 'zstd'] as const)(
    '%s: append fails with EFBIG and the file keeps its previous size and content',
    async (compression) => {
      const store = await JsonlSessionStore.open({ root, compression });
      const header = sessionHeader('limited', '/p');
      const log = new EventSequence();
      const first = log.closedTurn(1, 'small', ['a']);
      const path = await store.create(header, first);
      const before = await readFile(path);
      expect(before.length).toBeLessThan(LIMIT_KIB * 1024);

      const outcome = await runLimited('append', compression, header, bigTurn(log, 2));
      expect(outcome).toEqual({ ok: false, code: 'SESSION_STORE_IO_FAILED', cause: 'EFBIG' });
      expect((await stat(path)).size).toBe(before.length);
      expect(Buffer.compare(await readFile(path), before)).toBe(0);
      expect(json((await store.inspect(asSessionId('limited'))).events)).toBe(json(first));
    },
  );

  it.each(['none', 'zstd'] as const)('%s: create fails with EFBIG, publishes no artifact and leaves no temp file', async (compression) => {
    const store = await JsonlSessionStore.open({ root, compression });
    const header = sessionHeader('never', '/p');
    const outcome = await runLimited('create', compression, header, bigTurn(new EventSequence(), 1));
    expect(outcome).toEqual({ ok: false, code: 'SESSION_STORE_IO_FAILED', cause: 'EFBIG' });
    expect(await store.locate(asSessionId('never'))).toBeUndefined();
    expect(await store.list()).toEqual([]);
    const sessionDir = join(root, projectDirName('/p'), 'never');
    expect(readdirSync(sessionDir)).toEqual([]);
  });
});
