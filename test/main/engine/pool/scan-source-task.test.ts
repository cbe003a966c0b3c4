// The source cache's scan (`readSource` with a `scan` payload, issue 15 items 2–3): a cold scan projects every
// surface event; a resumed scan decodes only what was appended after the checkpoint (its steps start at the old
// committed count), and its result equals a cold scan of the grown file; a checkpoint whose guarded bytes changed
// is dropped (scanned cold); an invalid session answers `unscannable`. Through the pool too, so the value crosses
// the thread boundary and passes the result validation.
import { appendFile, mkdir, mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InThreadTaskRunner } from '../../../../src/main/engine/pool/in-thread-runner.js';
import { WorkerPool } from '../../../../src/main/engine/pool/worker-pool.js';
import type { TaskRunner } from '../../../../src/main/engine/pool/task-runner.js';
import type { ReadSourceValue, ScanPersistedSourcePayload } from '../../../../src/protocol/wire/task-shapes.js';
import { initZstd } from '../../../../src/workers/decode/zstd-codec.js';
import { artifactBytes, artifactPathOf, eventBytes, longSession } from '../../../../bench/support/long-session.js';

let dir: string;
beforeAll(async () => {
  await initZstd();
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-scan-task-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function payloadOf(
  root: string,
  path: string,
  id: string,
  resume: ScanPersistedSourcePayload['resume'],
  compression: 'none' | 'zstd',
): Promise<ScanPersistedSourcePayload> {
  const stats = await stat(path, { bigint: true });
  return {
    source: 'scan',
    artifact: {
      sessionId: id,
      path,
      root,
      compression,
      capture: { dev: stats.dev.toString(), ino: stats.ino.toString(), size: stats.size.toString() },
    },
    ctimeNs: stats.ctimeNs.toString(),
    resume,
  };
}

function scanned(value: ReadSourceValue): Extract<ReadSourceValue, { status: 'scanned' }> {
  if (value.status !== 'scanned') throw new Error(`expected scanned, got ${value.status}`);
  return value;
}

const RUNNERS: ReadonlyArray<[string, () => TaskRunner]> = [
  ['in-thread', () => new InThreadTaskRunner()],
  ['pool', () => new WorkerPool({ size: 1 })],
];

for (const [runnerName, makeRunner] of RUNNERS) {
  for (const compression of ['none', 'zstd'] as const) {
    describe(`readSource scan (${runnerName}, ${compression})`, () => {
      it('resumes over the appended bytes only and equals a cold scan of the grown file', async () => {
        const runner = makeRunner();
        try {
          const root = join(dir, `${runnerName}-${compression}`, 'root');
          const session = longSession({
            id: 'scan-source',
            seed: 3,
            minEvents: 80,
            textBytes: 40,
            toolCallsPerTurn: 1,
            chunksPerAnswer: 2,
            compactAfterTurn: 2,
          });
          const path = artifactPathOf(root, session.header, compression);
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, artifactBytes(session.header, session.events, compression, 8));
          const first = scanned(await runner.run('readSource', await payloadOf(root, path, 'scan-source', null, compression)));
          expect(first.scan.served).toBe('cold');
          expect(first.scan.committedEvents).toBe(session.events.length);
          expect(first.scan.steps.length).toBe(session.events.filter((event) => event.surfaceOp !== undefined).length);

          const added = session.more(30);
          await appendFile(path, eventBytes(added, compression, 8));
          const resumed = scanned(
            await runner.run('readSource', await payloadOf(root, path, 'scan-source', first.scan.resume, compression)),
          );
          expect(resumed.scan.served).toBe('appended');
          expect(resumed.scan.fromSeq).toBe(session.events.length - added.length);
          // Only the appended events were projected.
          expect(resumed.scan.steps.map((step) => step.seq)).toEqual(
            added.filter((event) => event.surfaceOp !== undefined).map((event) => event.seq),
          );

          const coldAgain = scanned(await runner.run('readSource', await payloadOf(root, path, 'scan-source', null, compression)));
          expect(resumed.scan.resume).toEqual(coldAgain.scan.resume);
          expect(resumed.scan.tailDigest).toBe(coldAgain.scan.tailDigest);
          expect(resumed.scan.balancedEvents).toBe(coldAgain.scan.balancedEvents);
          expect(coldAgain.scan.steps.slice(first.scan.steps.length)).toEqual(resumed.scan.steps);

          // A byte changed inside the guarded window before the resume offset: the checkpoint is dropped.
          const guardAt = Number(first.scan.revision.size) - 20;
          const handle = await open(path, 'r+');
          try {
            const byte = new Uint8Array(1);
            await handle.read(byte, 0, 1, guardAt);
            byte[0] = (byte[0] as number) ^ 0x20;
            await handle.write(byte, 0, 1, guardAt);
          } finally {
            await handle.close();
          }
          const afterRewrite = await runner.run('readSource', await payloadOf(root, path, 'scan-source', first.scan.resume, compression));
          // Cold again (or unscannable when the flipped byte broke the log): never continued from the stale checkpoint.
          if (afterRewrite.status === 'scanned') expect(afterRewrite.scan.served).toBe('cold');
          else expect(afterRewrite.status).toBe('unscannable');
        } finally {
          await runner.close();
        }
      });

      it('answers unscannable for a log that fails validation', async () => {
        const runner = makeRunner();
        try {
          const root = join(dir, `${runnerName}-${compression}-bad`, 'root');
          const session = longSession({
            id: 'scan-bad',
            seed: 4,
            minEvents: 20,
            textBytes: 40,
            toolCallsPerTurn: 1,
            chunksPerAnswer: 1,
            compactAfterTurn: 0,
          });
          const broken = session.events.map((event, index) => (index === 5 ? { ...event, seq: 99 } : event));
          const path = artifactPathOf(root, session.header, compression);
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, artifactBytes(session.header, broken, compression, 8));
          expect(await runner.run('readSource', await payloadOf(root, path, 'scan-bad', null, compression))).toEqual({
            status: 'unscannable',
          });
        } finally {
          await runner.close();
        }
      });
    });
  }
}
