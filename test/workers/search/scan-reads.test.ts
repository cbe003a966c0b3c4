// The search worker's scans read synchronously (issue 27 item 2): `scanSourceWith(…, 'sync')` answers exactly what
// the awaited scan of the source cache answers — cold, resumed over appended bytes, a checkpoint whose guarded bytes
// changed (dropped: cold), and a log that fails validation (unscannable) — in both encodings.
import { appendFile, mkdir, mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanPersistedSourcePayload } from '../../../src/protocol/wire/task-shapes.js';
import { initZstd } from '../../../src/workers/decode/zstd-codec.js';
import { projectionStep } from '../../../src/workers/reference/projection-fold.js';
import { scanSourceWith, type ScanOutcome } from '../../../src/workers/tasks/scan-source.js';
import { artifactBytes, artifactPathOf, eventBytes, longSession } from '../../../bench/support/long-session.js';

let dir: string;
beforeAll(async () => {
  await initZstd();
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-scan-reads-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const control = { signal: new AbortController().signal, poll: () => {}, pollFn: () => {} };

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

/** Both ways of reading, which must agree; returns the outcome. */
async function bothWays(payload: ScanPersistedSourcePayload): Promise<ScanOutcome<unknown>> {
  const awaited = await scanSourceWith(payload, control, projectionStep);
  const sync = await scanSourceWith(payload, control, projectionStep, 'sync');
  expect(sync).toEqual(awaited);
  return sync;
}

for (const compression of ['none', 'zstd'] as const) {
  describe(`synchronous scan reads (${compression})`, () => {
    it('equal the awaited scan: cold, resumed, a changed guard window, an invalid log', async () => {
      const root = join(dir, compression, 'root');
      const session = longSession({
        id: 'scan-reads',
        seed: 7,
        minEvents: 80,
        textBytes: 40,
        toolCallsPerTurn: 1,
        chunksPerAnswer: 2,
        compactAfterTurn: 2,
      });
      const path = artifactPathOf(root, session.header, compression);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, artifactBytes(session.header, session.events, compression, 8));
      const first = await bothWays(await payloadOf(root, path, 'scan-reads', null, compression));
      if (first.status !== 'scanned') throw new Error('expected a scanned log');
      expect(first.scan.served).toBe('cold');

      await appendFile(path, eventBytes(session.more(30), compression, 8));
      const resumed = await bothWays(await payloadOf(root, path, 'scan-reads', first.scan.resume, compression));
      expect(resumed.status === 'scanned' && resumed.scan.served).toBe('appended');

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
      const rewritten = await bothWays(await payloadOf(root, path, 'scan-reads', first.scan.resume, compression));
      if (rewritten.status === 'scanned') expect(rewritten.scan.served).toBe('cold');

      const broken = session.events.map((event, index) => (index === 5 ? { ...event, seq: 99 } : event));
      await writeFile(path, artifactBytes(session.header, broken, compression, 8));
      expect(await bothWays(await payloadOf(root, path, 'scan-reads', null, compression))).toEqual({ status: 'unscannable' });
    });
  });
}
