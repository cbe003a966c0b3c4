/**
 * A writer process for the reliability tests (not a test file): appends closed turns to one session and prints, on
 * stdout, one line per acknowledged batch — `ack <first seq> <last seq> <tag>` — only after `append` resolved (the
 * batch is fsynced). It runs until killed, or until `maxBatches` batches were acknowledged (then `done`). A typed
 * failure prints `err <code>` and exits 2.
 *
 * argv: root compression id mode(create|resume) tag promptBytes maxBatches
 * `resume` takes the session's writer (breaking a crashed holder's stale lock) and repairs a torn tail first.
 * `percall` holds no writer: each batch is one `store.append` (the lock taken per call; LOCKED is retried), its seqs
 * computed from this process's own view of the log, as two independent hosts would.
 */
import { JsonlSessionStore } from '../../src/main/engine/store/jsonl-store.js';
import type { SessionWriter } from '../../src/main/engine/store/session-writer.js';
import { asSessionId } from '../../src/protocol/events.js';
import type { SessionHeader } from '../../src/protocol/events.js';
import { closedTurn, promptOf } from './child-events.js';

const [root, compression, id, mode, tag, promptBytesText, maxBatchesText] = process.argv.slice(2);
if (root === undefined || (compression !== 'none' && compression !== 'zstd') || id === undefined || tag === undefined) {
  throw new Error('usage: writer-child root compression id mode tag promptBytes maxBatches');
}
const promptBytes = Number(promptBytesText ?? '1000');
const maxBatches = Number(maxBatchesText ?? '1000000');

/** Numbers events like a live log: `closedTurn` at the next seq. */
class Log {
  length = 0;
  advance(count: number): void {
    this.length += count;
  }
  closedTurn(turn: number, prompt: string): ReturnType<typeof closedTurn> {
    const events = closedTurn(this.length, turn, prompt);
    this.length += events.length;
    return events;
  }
}

async function main(): Promise<void> {
  const store = await JsonlSessionStore.open({ root: root as string, compression: compression as 'none' | 'zstd', titleIndex: false });
  const header = { version: 0, id: asSessionId(id as string), createdAt: 1_767_225_599_000, cwd: '/reliability' } as SessionHeader;
  const log = new Log();
  let writer: SessionWriter;
  let turn = 1;
  if (mode === 'create') {
    const first = log.closedTurn(turn, promptOf(tag as string, 0, 16));
    writer = await store.createWriter(header, first);
    process.stdout.write(`ack 0 ${first.length - 1} ${tag}\n`);
  } else if (mode === 'percall') {
    const inspection = await store.inspect(asSessionId(id as string));
    log.advance(inspection.events.length);
    turn = inspection.events.filter((event) => event.type === 'turn/start').length;
    process.stdout.write(`ready ${log.length} ${tag}\n`);
    for (let count = 0; count < maxBatches; count += 1) {
      turn += 1;
      const first = log.length;
      const batch = log.closedTurn(turn, promptOf(tag as string, first, promptBytes));
      for (;;) {
        try {
          await store.append(header, batch);
          break;
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'SESSION_STORE_LOCKED') throw error;
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      }
      process.stdout.write(`ack ${first} ${log.length - 1} ${tag}\n`);
    }
    process.stdout.write('done\n');
    return;
  } else {
    writer = await store.acquireWriter(asSessionId(id as string));
    if (writer.hasTornTail) await writer.repair();
    const inspection = await store.inspect(asSessionId(id as string));
    log.advance(writer.nextSeq ?? inspection.events.length);
    turn = inspection.events.filter((event) => event.type === 'turn/start').length;
    process.stdout.write(`ready ${writer.nextSeq} ${tag}\n`);
  }
  for (let count = 0; count < maxBatches; count += 1) {
    turn += 1;
    const first = log.length;
    const batch = log.closedTurn(turn, promptOf(tag as string, first, promptBytes));
    await writer.append(batch);
    process.stdout.write(`ack ${first} ${log.length - 1} ${tag}\n`);
  }
  await writer.release();
  process.stdout.write('done\n');
}

main().catch((error: unknown) => {
  const code = (error as { code?: unknown }).code;
  process.stdout.write(`err ${typeof code === 'string' ? code : 'UNTYPED'} ${(error as Error).message.replace(/\n/g, ' ')}\n`);
  process.exit(2);
});
