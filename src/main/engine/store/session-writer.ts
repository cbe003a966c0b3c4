/**
 * The one writer of a session (SESSION-LOG.md §9.16 rules 4–6): holds the session's lock (`session-lock.ts`) and
 * what it last committed or verified of the log — the file's dev, ino and size and the log's next seq. Every
 * append checks all of them (the optimistic checks hold even against a tool that ignores the lock) and refuses a
 * log with a torn tail: the torn bytes are never written over; {@link SessionWriter.repair} fixes them first.
 */
import type { SessionEvent, SessionId } from '../../../protocol/events.js';
import { SessionLogError } from '../../../protocol/errors.js';
import { decodeArtifact } from '../../../workers/decode/decode-artifact.js';
import { codecReadyFor } from '../../../workers/decode/zstd-codec.js';
import type { TornTail } from '../../../workers/decode/decode-artifact.js';
import { withStoreIo } from '../../../io/regular-file.js';
import { appendCommitted, batchBytes, repairCommitted } from './artifact-writer.js';
import type { CommittedFile } from './artifact-writer.js';
import { stableRead } from '../../../io/file-revision.js';
import type { FileRevision } from '../../../io/file-revision.js';
import { requestedIdMismatchError } from '../../../protocol/layout-errors.js';
import type { SessionLock } from './session-lock.js';
import type { JsonlStoreConfig } from './store-config.js';

/** What a writer knows of its log. */
interface WriterState {
  readonly file: CommittedFile;
  readonly nextSeq: number;
  /** A torn tail found by verification: appends are refused until a repair. */
  readonly torn: TornTail | undefined;
  /** Set by a conflict: the log changed under this writer, so every later append is refused too. */
  readonly conflict: SessionLogError | undefined;
}

/** A full inspection as the writer's repair needs it (the store's `inspectArtifact`). */
export interface RepairInspection {
  readonly path: string;
  readonly revision: FileRevision;
  readonly decoded: { readonly events: readonly unknown[]; readonly tornTail?: TornTail };
  readonly events: readonly SessionEvent[];
}

/** What {@link SessionWriter} is built from (by the store). */
export interface SessionWriterParts {
  readonly config: JsonlStoreConfig;
  readonly id: SessionId;
  readonly path: string;
  readonly lock: SessionLock;
  /** The committed state when the writer just created the log; `undefined` → verified by reading it. */
  readonly created?: { readonly file: CommittedFile; readonly nextSeq: number };
  /** A full inspection of the session (for repair). */
  readonly inspect: () => Promise<RepairInspection>;
  /** Called once when the writer is released. */
  readonly onRelease: () => void;
}

/** The seq rule of an append: the batch continues the log, one seq per event. */
function checkBatchSeqs(path: string, batch: readonly SessionEvent[], nextSeq: number): void {
  const first = batch[0]?.seq;
  if (first !== nextSeq) {
    throw new SessionLogError(
      'SESSION_STORE_CONFLICT',
      `session log ${JSON.stringify(path)}: the batch starts at seq ${String(first)}, but the log's next seq is ${nextSeq}; nothing was written`,
    );
  }
  batch.forEach((event, index) => {
    if (event.seq !== nextSeq + index) {
      throw new SessionLogError(
        'SESSION_LOG_INVALID_APPEND',
        `session log ${JSON.stringify(path)}: batch seqs are not contiguous (event ${index} has seq ${String(event.seq)}, expected ${nextSeq + index}); nothing was written`,
      );
    }
  });
}

/**
 * The held writer of one session. Obtain it from `JsonlSessionStore.acquireWriter` or `createWriter`; keep it for
 * as long as the session is written (a host session's life); {@link release} it when done (a crashed process's
 * lock is broken by the next writer).
 */
export class SessionWriter {
  /** The session's id. */
  readonly id: SessionId;
  /** The artifact this writer writes. */
  readonly path: string;
  private readonly parts: SessionWriterParts;
  private state: WriterState | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private releasedFlag = false;
  private releasing: Promise<void> | undefined;

  /** @internal Built by the store. */
  constructor(parts: SessionWriterParts) {
    this.parts = parts;
    this.id = parts.id;
    this.path = parts.path;
    if (parts.created !== undefined) this.state = { ...parts.created, torn: undefined, conflict: undefined };
  }

  /** The seq the next appended batch must start with (`undefined` before the log was verified). */
  get nextSeq(): number | undefined {
    return this.state?.nextSeq;
  }

  /** True when the log has a torn tail that {@link repair} must fix before the next append. */
  get hasTornTail(): boolean {
    return this.state?.torn !== undefined;
  }

  /** True once {@link release} was called. */
  get released(): boolean {
    return this.releasedFlag;
  }

  /**
   * Reads the log (under the lock) to learn its committed size, identity and next seq, and whether it has a torn
   * tail. Done on acquisition; again after a failed write.
   *
   * @throws the log's corruption or I/O error as a read would give it.
   */
  async verify(): Promise<void> {
    await this.serialized(() => this.verifyNow());
  }

  private async verifyNow(): Promise<WriterState> {
    const { bytes, revision } = await stableRead(this.path);
    await codecReadyFor(this.parts.config.compression);
    const decoded = decodeArtifact(bytes, this.parts.config.compression, this.path);
    const headerId = decoded.headerRecord.id;
    if (headerId !== this.id) throw requestedIdMismatchError(this.path, this.id, String(headerId));
    const state: WriterState = {
      file: { dev: BigInt(revision.dev), ino: BigInt(revision.ino), size: bytes.byteLength },
      nextSeq: decoded.events.length,
      torn: decoded.tornTail,
      conflict: undefined,
    };
    this.state = state;
    return state;
  }

  /**
   * Appends one durable batch (§9.16 rules 2, 5, 6). Checked first, nothing written on failure: the lock is still
   * this writer's (`SESSION_STORE_LOCKED`), the log has no torn tail (`SESSION_STORE_TORN_TAIL`), the batch's first
   * seq is the log's next seq and the file's dev, ino and size are those last committed or verified
   * (`SESSION_STORE_CONFLICT`), the batch's seqs are contiguous (`SESSION_LOG_INVALID_APPEND`). A failed write is
   * rolled back to the size before it (only this writer's bytes) and rethrown as a typed I/O error.
   */
  async append(batch: readonly SessionEvent[]): Promise<void> {
    await this.serialized(async () => {
      this.assertOpen();
      if (batch.length === 0) return;
      await this.parts.lock.assertHeld();
      const state = this.state ?? (await this.verifyNow());
      if (state.conflict !== undefined) throw state.conflict;
      if (state.torn !== undefined) {
        throw new SessionLogError(
          'SESSION_STORE_TORN_TAIL',
          `session log ${JSON.stringify(this.path)} ends in a torn tail at byte ${state.torn.truncateTo} (a crashed write); nothing was appended: repair the session first`,
        );
      }
      checkBatchSeqs(this.path, batch, state.nextSeq);
      const bytes = await batchBytes(batch, this.parts.config.compression, this.parts.config.packChunks);
      try {
        const file = await withStoreIo('append to', this.path, () => appendCommitted(this.path, state.file, bytes));
        this.state = { file, nextSeq: state.nextSeq + batch.length, torn: undefined, conflict: undefined };
      } catch (error) {
        if (error instanceof SessionLogError && error.code === 'SESSION_STORE_CONFLICT') this.state = { ...state, conflict: error };
        // After a failed write the file is what the rollback left: learn it again before the next append.
        else this.state = undefined;
        throw error;
      }
    });
  }

  /**
   * Durable crash repair (§9.12 rule 4) under the lock: inspects the log, checks on the opened file that it is still
   * exactly what was inspected, truncates the torn tail (what the inspection verified to be past the last complete
   * record), then appends the recovered events and the synthetic closers as one batch. Returns the number of events
   * written (0 when the log needed none). Clears a conflict: the state is learned afresh.
   */
  async repair(): Promise<number> {
    return this.serialized(async () => {
      this.assertOpen();
      await this.parts.lock.assertHeld();
      const inspection = await this.parts.inspect();
      if (inspection.path !== this.path) {
        throw new SessionLogError(
          'SESSION_STORE_CONFLICT',
          `session "${this.id}" is now found at ${JSON.stringify(inspection.path)}, not at this writer's ${JSON.stringify(this.path)}`,
        );
      }
      const expected: CommittedFile = {
        dev: BigInt(inspection.revision.dev),
        ino: BigInt(inspection.revision.ino),
        size: Number(inspection.revision.size),
      };
      const stored = inspection.decoded.events.length;
      const closers = inspection.events.slice(stored);
      const tail = inspection.decoded.tornTail;
      if (tail === undefined && closers.length === 0) {
        this.state = { file: expected, nextSeq: stored, torn: undefined, conflict: undefined };
        return 0;
      }
      const recovered = tail === undefined ? [] : (inspection.decoded.events.slice(stored - tail.recoveredEvents) as SessionEvent[]);
      const batch = [...recovered, ...closers];
      const bytes = batch.length === 0 ? undefined : await batchBytes(batch, this.parts.config.compression, this.parts.config.packChunks);
      try {
        const file = await withStoreIo('repair', this.path, () => repairCommitted(this.path, expected, tail?.truncateTo, bytes));
        this.state = { file, nextSeq: inspection.events.length, torn: undefined, conflict: undefined };
      } catch (error) {
        this.state = undefined;
        throw error;
      }
      return batch.length;
    });
  }

  /** Releases the lock after the writes already asked for; idempotent (every call gets the same promise). */
  release(): Promise<void> {
    this.releasing ??= this.serialized(async () => {
      this.releasedFlag = true;
      try {
        await this.parts.lock.release();
      } finally {
        this.parts.onRelease();
      }
    });
    return this.releasing;
  }

  private assertOpen(): void {
    if (this.releasedFlag)
      throw new SessionLogError('SESSION_STORE_LOCKED', `session "${this.id}": this writer was released; acquire the writer again`);
  }

  /** Runs one operation after the previous ones, in call order. */
  private serialized<T>(operation: () => Promise<T>): Promise<T> {
    const next = this.queue.catch(() => undefined).then(operation);
    this.queue = next;
    return next;
  }
}
