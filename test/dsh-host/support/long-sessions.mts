/**
 * Multi-megabyte dsh-written sources: a dsh host (no resolver) runs real turns whose scripted replies are long, and
 * dsh's JSONL persistence writes the logs. Deterministic: the same options give the same bytes.
 */
import { bootDshHost } from '../harness/dsh-host.mts';

/** Options of {@link writeLongSessions}. */
export interface LongSessionOptions {
  /** Session ids to write (each a new session in `cwd`). */
  readonly ids: readonly string[];
  readonly cwd: string;
  /** Approximate bytes of assistant text per session. */
  readonly bytesPerSession: number;
  /** Bytes of one reply. */
  readonly replyBytes: number;
}

/** A reply of `bytes` characters of prose, different for every (session, turn). */
function replyText(session: number, turn: number, bytes: number): string {
  const words = ['gradient', 'batch', 'loader', 'shard', 'epoch', 'cache', 'metric', 'window', 'retry', 'budget'];
  let text = `Session ${session}, turn ${turn}: `;
  for (let index = 0; text.length < bytes; index += 1) text += `${words[(index * 7 + turn + session) % words.length]} `;
  return text.slice(0, bytes);
}

/** Writes the long sessions into `root` (an existing JSONL root) through a dsh host, and disposes it. */
export async function writeLongSessions(root: string, options: LongSessionOptions): Promise<void> {
  const host = await bootDshHost({ root, resolver: null, seed: 'long-sessions' });
  try {
    const turns = Math.ceil(options.bytesPerSession / options.replyBytes);
    for (const [session, id] of options.ids.entries()) {
      const target = await host.createSession({ id, cwd: options.cwd });
      for (let turn = 0; turn < turns; turn += 1) {
        host.reply({ kind: 'text', text: replyText(session, turn, options.replyBytes) });
        await host.runTurn(target, `Step ${turn}: continue the investigation of shard ${turn % 17}.`);
      }
      await host.closeSession(target);
    }
  } finally {
    await host.dispose();
  }
}
