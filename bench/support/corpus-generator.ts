/**
 * Generates a discovery corpus: many small titled sessions spread over a few working directories,
 * written with this project's own store (raw or zstd).
 */
import { asSessionId } from '../../src/protocol/events.js';
import type { SessionEvent, SessionHeader } from '../../src/protocol/events.js';
import type { Compression } from '../../src/protocol/storage-paths.js';
import { JsonlSessionStore } from '../../src/main/engine/store/jsonl-store.js';
import { syntheticText } from './synthetic-session.js';

const TOPICS = ['checkout', 'migration', 'training', 'deploy', 'cache', 'auth', 'billing', 'search', 'upload', 'metrics'];

/** The header and events of the `index`-th corpus session (deterministic). */
export function corpusSession(index: number, turns: number): { header: SessionHeader; events: SessionEvent[] } {
  const id = `session-${String(index).padStart(6, '0')}`;
  const header: SessionHeader = {
    version: 0,
    id: asSessionId(id),
    createdAt: 1_760_000_000_000 + index * 60_000,
    cwd: `/work/project-${index % 25}`,
    delegationDepth: 0,
  };
  const events: SessionEvent[] = [];
  const push = (type: string, data: unknown, surface = false): void => {
    events.push({
      type,
      seq: events.length,
      time: header.createdAt + events.length,
      data,
      ...(surface ? { surfaceOp: 'append' as const } : {}),
    });
  };
  for (let turn = 1; turn <= turns; turn += 1) {
    push('turn/start', { turn });
    push(
      'user/message',
      {
        content: [{ type: 'text', text: syntheticText(index * 7 + turn, 300) }],
        source: { kind: 'user' },
        role: 'user',
        id: `${id}-u${turn}`,
      },
      true,
    );
    if (turn === 1)
      push('session/title', {
        title: `Fix ${TOPICS[index % TOPICS.length]} issue ${index}`,
        messageSeqs: [1],
        source: { kind: 'fallback' },
      });
    push('step/start', { turn, step: 1 });
    push(
      'assistant/message',
      {
        turn,
        step: 1,
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: syntheticText(index * 13 + turn, 600) }],
          source: { kind: 'model', provider: 'bench', model: 'bench-1' },
          id: `${id}-a${turn}`,
        },
      },
      true,
    );
    push('step/end', { turn, step: 1 });
    push('turn/end', { turn, reason: { kind: 'completed' } });
  }
  return { header, events };
}

/** Writes `count` sessions of `turns` turns under `root`, a few at a time. */
export async function writeDiscoveryCorpus(
  root: string,
  count: number,
  turns: number,
  compression: Compression,
  onProgress?: (done: number) => void,
): Promise<JsonlSessionStore> {
  const store = await JsonlSessionStore.open({ root, compression });
  const parallel = 16;
  for (let start = 0; start < count; start += parallel) {
    await Promise.all(
      Array.from({ length: Math.min(parallel, count - start) }, (_, offset) => {
        const { header, events } = corpusSession(start + offset, turns);
        return store.create(header, events);
      }),
    );
    onProgress?.(Math.min(count, start + parallel));
  }
  return store;
}
