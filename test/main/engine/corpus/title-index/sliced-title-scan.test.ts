/**
 * The title index's sliced scan (issue 27 item 6): a long log scanned a slice at a time, each resumed from the previous
 * slice's clean point with a hop between them, gives exactly what one pass gives — outcome, checkpoint, balanced event
 * count — for dsh-written logs (raw and zstd), long generated logs, damaged and truncated ones, and scans continued
 * from an earlier checkpoint; and it does hop (the event loop turns) once a log is longer than a slice.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { artifactBytes, longSession } from '../../../../../bench/support/long-session.js';
import type { Compression } from '../../../../../src/protocol/storage-paths.js';
import { scanTitleLogInSlices } from '../../../../../src/main/engine/corpus/title-index/sliced-title-scan.js';
import { initZstd } from '../../../../../src/workers/decode/zstd-codec.js';
import { scanTitleLog } from '../../../../../src/workers/titles/title-scan.js';
import { fixtureSessions } from '../../../../support/fixtures.js';

const SLICE = 4096;

beforeAll(async () => {
  await initZstd();
});

/** The sliced scan of `bytes` and the number of hops it made. */
async function sliced(compression: Compression, bytes: Uint8Array): Promise<{ result: unknown; hops: number }> {
  let hops = 0;
  const result = await scanTitleLogInSlices(
    { compression, path: '/r/p/s/session.jsonl', bytes },
    {
      sliceBytes: SLICE,
      pause: async () => {
        hops += 1;
      },
    },
  );
  return { result, hops };
}

function whole(compression: Compression, bytes: Uint8Array): unknown {
  return scanTitleLog({ compression, path: '/r/p/s/session.jsonl', bytes });
}

const long = longSession({
  id: 'session-00000000-0000-4000-8000-00000000a001',
  cwd: '/work/sliced',
  seed: 5,
  minEvents: 3000,
  textBytes: 200,
  toolCallsPerTurn: 2,
  chunksPerAnswer: 6,
  compactAfterTurn: 40,
});

describe('a sliced title scan answers as one pass does', () => {
  it('every dsh-written fixture log, raw and zstd; a log longer than two slices hops', async () => {
    for (const session of fixtureSessions()) {
      for (const [compression, path] of [
        ['none', session.rawPath],
        ['zstd', session.zstdPath],
      ] as const) {
        const bytes = new Uint8Array(readFileSync(path));
        const { result, hops } = await sliced(compression, bytes);
        expect(result, `${compression} ${session.id}`).toEqual(whole(compression, bytes));
        if (bytes.length > 2 * SLICE && compression === 'none') expect(hops, session.id).toBeGreaterThan(0);
      }
    }
  });

  it('a long generated log (3,000+ events, a native compaction), raw and zstd, with many hops', async () => {
    for (const compression of ['none', 'zstd'] as const) {
      const bytes = artifactBytes(long.header, long.events, compression, 16);
      const { result, hops } = await sliced(compression, bytes);
      expect(result).toEqual(whole(compression, bytes));
      expect(hops).toBeGreaterThan(Math.floor(bytes.length / SLICE / 4));
    }
  });

  it('damaged logs: truncated at every 997th byte, and a byte flipped, give the single pass answer', async () => {
    const bytes = artifactBytes(long.header, long.events, 'none', 16);
    for (let cut = 1; cut < bytes.length; cut += 997 * 7) {
      const truncated = bytes.subarray(0, cut);
      expect((await sliced('none', truncated)).result, `cut at ${cut}`).toEqual(whole('none', truncated));
    }
    for (const at of [10, Math.floor(bytes.length / 3), bytes.length - 50]) {
      const flipped = new Uint8Array(bytes);
      flipped[at] = (flipped[at] as number) ^ 0x22;
      expect((await sliced('none', flipped)).result, `flip at ${at}`).toEqual(whole('none', flipped));
    }
  });

  it('a scan continued from an earlier checkpoint, sliced, equals the single continued pass', async () => {
    const bytes = artifactBytes(long.header, long.events, 'none', 16);
    const prefix = scanTitleLog({
      compression: 'none',
      path: '/r/p/s/session.jsonl',
      bytes: bytes.subarray(0, Math.floor(bytes.length / 3)),
    });
    const checkpoint = prefix.checkpoint;
    if (checkpoint === null) throw new Error('the prefix has no clean point');
    const rest = bytes.subarray(checkpoint.resumeOffset);
    let hops = 0;
    const result = await scanTitleLogInSlices(
      { compression: 'none', path: '/r/p/s/session.jsonl', bytes: rest, checkpoint },
      {
        sliceBytes: SLICE,
        pause: async () => {
          hops += 1;
        },
      },
    );
    expect(result).toEqual(scanTitleLog({ compression: 'none', path: '/r/p/s/session.jsonl', bytes: rest, checkpoint }));
    expect(result).toEqual(whole('none', bytes));
    expect(hops).toBeGreaterThan(0);
  });
});
