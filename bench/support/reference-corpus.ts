/**
 * Writes reference sources for the prepare benchmarks: sessions of N text messages of about 1 KB
 * each (alternating user and assistant), in this project's own raw JSONL store.
 */
import { asSessionId } from '../../src/protocol/events.js';
import type { SessionEvent, SessionHeader, SessionId } from '../../src/protocol/events.js';
import { JsonlSessionStore } from '../../src/main/engine/store/jsonl-store.js';
import { syntheticText } from './synthetic-session.js';

/** One written source. */
export interface WrittenSource {
  readonly id: SessionId;
  readonly path: string;
  readonly messages: number;
}

/** Builds a log of `messages` text messages of `bytes` bytes each, one turn per user/assistant pair. */
export function textOnlySession(id: string, messages: number, bytes: number): { header: SessionHeader; events: SessionEvent[] } {
  const header: SessionHeader = {
    version: 0,
    id: asSessionId(id),
    createdAt: 1_767_225_600_000,
    cwd: '/bench/sources',
    delegationDepth: 0,
  };
  const events: SessionEvent[] = [];
  const push = (type: string, data: unknown, surface: boolean): void => {
    events.push({
      type,
      seq: events.length,
      time: 1_767_225_600_000 + events.length,
      data,
      ...(surface ? { surfaceOp: 'append' as const } : {}),
    });
  };
  let turn = 0;
  for (let index = 0; index < messages; index += 1) {
    const text = syntheticText(index + 1, bytes);
    if (index % 2 === 0) {
      turn += 1;
      push('turn/start', { turn }, false);
      push('user/message', { content: [{ type: 'text', text }], source: { kind: 'user' }, role: 'user', id: `${id}-u${index}` }, true);
      push('step/start', { turn, step: 1 }, false);
    } else {
      push(
        'assistant/message',
        {
          turn,
          step: 1,
          message: {
            role: 'assistant',
            content: [{ type: 'text', text }],
            source: { kind: 'model', provider: 'bench', model: 'bench-1' },
            id: `${id}-a${index}`,
          },
        },
        true,
      );
      push('step/end', { turn, step: 1 }, false);
      push('turn/end', { turn, reason: { kind: 'completed' } }, false);
    }
  }
  return { header, events };
}

/** Writes `count` sources of `messages` × `bytes` into a raw store under `root`. */
export async function writeTextSources(
  root: string,
  prefix: string,
  count: number,
  messages: number,
  bytes: number,
): Promise<WrittenSource[]> {
  const store = await JsonlSessionStore.open({ root, compression: 'none' });
  const out: WrittenSource[] = [];
  for (let index = 0; index < count; index += 1) {
    const { header, events } = textOnlySession(`${prefix}-${index}`, messages, bytes);
    const path = await store.create(header, events.slice(0, 1000));
    for (let at = 1000; at < events.length; at += 1000) await store.append(header, events.slice(at, at + 1000));
    out.push({ id: header.id, path, messages });
  }
  return out;
}
