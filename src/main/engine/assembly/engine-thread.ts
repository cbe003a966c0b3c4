/**
 * `createEngineThread` (ARCHITECTURE.md §2 "comlink"): the same engine as `createEngine`, built and run
 * in a dedicated worker thread and reached through a comlink proxy. The client keeps the facade's
 * semantics: signals become abort messages for the call, failures are rebuilt with their names, codes
 * and causes, and returned messages are deep-frozen again as the in-process engine returns them.
 * Live sessions cannot cross threads, so an engine thread serves persisted sessions only; a host with
 * live sessions attaches them to an in-process engine (`createEngine(...).attachLive`).
 */
import { Worker } from 'node:worker_threads';
import { proxy, releaseProxy, wrap } from 'comlink';
import type { Remote } from 'comlink';
import { deepFreeze } from '../../../protocol/deep-freeze.js';
import type { SessionSurfaceSnapshot } from '../../../protocol/events.js';
import { isRecord } from '../../../protocol/record-guard.js';
import { SessionReferenceError, cancelledError } from '../../../protocol/reference-errors.js';
import { rebuildError, serializeError } from '../../../protocol/wire/wire-error.js';
import type { WireError } from '../../../protocol/wire/wire-error.js';
import type { PreparedReferences, SizedPreparation } from '../reference/reference-types.js';
import type { RejectedTitleObservation, SessionTitleObservation } from '../corpus/session-query.js';
import type { EngineMethod, EngineThreadApi, RpcOutcome } from './engine-rpc.js';
import { SIGNAL_INDEX } from './engine-rpc.js';
import type { ObserveAllTitlesOptions, SessionEngine, SessionEngineOptions, TitleScanSummary } from './engine-types.js';
import { nodeEndpoint } from './node-endpoint.js';
import { assertNever } from '../../../protocol/assert-never.js';

const ENTRY_URL = new URL('./engine-thread-entry.js', import.meta.url);

/** Methods whose abort rejects with exactly `signal.reason` (the query layer, SESSION-LOG.md §10.1). */
const QUERY_METHODS: ReadonlySet<EngineMethod> = new Set([
  'listSessions',
  'listSessionsReport',
  'readSurface',
  'readTitleSnapshots',
  'searchSessions',
]);

/** The returned messages of a surface snapshot are deep-frozen (§10.4 step 8); the header is not. */
function refreezeSurface(snapshot: SessionSurfaceSnapshot): SessionSurfaceSnapshot {
  for (const event of snapshot.events) {
    if (event.type === 'user/message') deepFreeze(event.data);
    else if (isRecord(event.data)) deepFreeze(event.data['message']);
  }
  return snapshot;
}

/** The context message of a preparation is frozen (SESSION-REFERENCE.md §12). */
function refreezePrepared(prepared: PreparedReferences): PreparedReferences {
  if (prepared.additionalContext !== undefined) deepFreeze(prepared.additionalContext);
  return prepared;
}

function afterCall(method: EngineMethod, value: unknown): unknown {
  switch (method) {
    case 'readSurface':
      return refreezeSurface(value as SessionSurfaceSnapshot);
    case 'prepare':
      return refreezePrepared(value as PreparedReferences);
    case 'prepareSized': {
      const sized = value as SizedPreparation;
      refreezePrepared(sized.prepared);
      return sized;
    }
    case 'readTitleSnapshots':
      return (value as Array<SessionTitleObservation | (RejectedTitleObservation & { reason: WireError })>).map((observation) =>
        observation.status === 'rejected' ? { ...observation, reason: rebuildError(observation.reason as WireError) } : observation,
      );
    case 'listSessions':
    case 'listSessionsReport':
    case 'listCandidates':
    case 'candidates':
    case 'searchSessions':
      return value;
    default:
      assertNever(method, 'unknown engine method');
  }
}

/** The client side of an engine thread. */
class EngineThreadClient implements SessionEngine {
  readonly #worker: Worker;
  readonly #remote: Remote<EngineThreadApi>;
  #nextCallId = 1;
  #closing: Promise<void> | undefined;

  constructor(worker: Worker, remote: Remote<EngineThreadApi>) {
    this.#worker = worker;
    this.#remote = remote;
  }

  listSessions(...args: Parameters<SessionEngine['listSessions']>): ReturnType<SessionEngine['listSessions']> {
    return this.#call('listSessions', args) as ReturnType<SessionEngine['listSessions']>;
  }

  listSessionsReport(...args: Parameters<SessionEngine['listSessionsReport']>): ReturnType<SessionEngine['listSessionsReport']> {
    return this.#call('listSessionsReport', args) as ReturnType<SessionEngine['listSessionsReport']>;
  }

  readSurface(...args: Parameters<SessionEngine['readSurface']>): ReturnType<SessionEngine['readSurface']> {
    return this.#call('readSurface', args) as ReturnType<SessionEngine['readSurface']>;
  }

  readTitleSnapshots(...args: Parameters<SessionEngine['readTitleSnapshots']>): ReturnType<SessionEngine['readTitleSnapshots']> {
    return this.#call('readTitleSnapshots', args) as ReturnType<SessionEngine['readTitleSnapshots']>;
  }

  listCandidates(...args: Parameters<SessionEngine['listCandidates']>): ReturnType<SessionEngine['listCandidates']> {
    return this.#call('listCandidates', args) as ReturnType<SessionEngine['listCandidates']>;
  }

  candidates(...args: Parameters<SessionEngine['candidates']>): ReturnType<SessionEngine['candidates']> {
    return this.#call('candidates', args) as ReturnType<SessionEngine['candidates']>;
  }

  prepare(...args: Parameters<SessionEngine['prepare']>): ReturnType<SessionEngine['prepare']> {
    return this.#call('prepare', args) as ReturnType<SessionEngine['prepare']>;
  }

  prepareSized(...args: Parameters<SessionEngine['prepareSized']>): ReturnType<SessionEngine['prepareSized']> {
    return this.#call('prepareSized', args) as ReturnType<SessionEngine['prepareSized']>;
  }

  searchSessions(...args: Parameters<SessionEngine['searchSessions']>): ReturnType<SessionEngine['searchSessions']> {
    return this.#call('searchSessions', args) as ReturnType<SessionEngine['searchSessions']>;
  }

  async observeAllTitles(options: ObserveAllTitlesOptions = {}): Promise<TitleScanSummary> {
    const callId = this.#nextCallId++;
    const { signal, onProgress } = options;
    const progress = onProgress === undefined ? undefined : proxy(onProgress);
    const outcome = await this.#withAbort(callId, signal, () => this.#remote.observeAllTitles(callId, signal !== undefined, progress));
    if (outcome.ok) return outcome.value;
    if (signal?.aborted === true) throw signal.reason;
    throw rebuildError(outcome.error);
  }

  /** Closes the engine's pool, then ends the thread. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        await this.#remote.close();
      } finally {
        this.#remote[releaseProxy]();
        await this.#worker.terminate();
      }
    })();
    return this.#closing;
  }

  async #call(method: EngineMethod, args: readonly unknown[]): Promise<unknown> {
    const callId = this.#nextCallId++;
    const index = SIGNAL_INDEX[method];
    const signal = args[index] as AbortSignal | undefined;
    const plain = [...args];
    if (plain.length > index) plain[index] = undefined;
    const abortedWith = signal?.aborted === true ? serializeError(signal.reason) : undefined;
    const outcome = await this.#withAbort(callId, signal, () =>
      this.#remote.call({
        callId,
        method,
        args: plain,
        withSignal: signal !== undefined,
        ...(abortedWith === undefined ? {} : { abortedWith }),
      }),
    );
    if (outcome.ok) return afterCall(method, outcome.value);
    throw this.#failure(method, outcome.error, signal);
  }

  /** Runs a remote call, forwarding an abort of `signal` that happens while it runs. */
  async #withAbort<V>(callId: number, signal: AbortSignal | undefined, run: () => Promise<RpcOutcome<V>>): Promise<RpcOutcome<V>> {
    if (signal === undefined || signal.aborted) return run();
    const onAbort = (): void => {
      // A failed abort message (the thread is closing) changes nothing: the call itself still settles.
      this.#remote.abort(callId, serializeError(signal.reason)).catch(() => undefined);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await run();
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * The rebuilt failure, with the caller's own `signal.reason` restored where the in-process engine
   * would have used it: as the rejection of a query method, and as the cause of `CANCELLED`.
   */
  #failure(method: EngineMethod, wire: WireError, signal: AbortSignal | undefined): unknown {
    const error = rebuildError(wire);
    if (signal?.aborted !== true) return error;
    if (QUERY_METHODS.has(method)) return signal.reason;
    if (error instanceof SessionReferenceError && error.code === 'SESSION_REFERENCE_CANCELLED') return cancelledError(signal.reason);
    return error;
  }
}

/**
 * Starts an engine thread and resolves once its engine is built; a configuration error rejects with the
 * same typed error `createEngine` would throw, and the thread is ended.
 */
export async function createEngineThread(options: SessionEngineOptions = {}): Promise<SessionEngine> {
  const worker = new Worker(ENTRY_URL, { workerData: { options } });
  const remote = wrap<EngineThreadApi>(nodeEndpoint(worker));
  const client = new EngineThreadClient(worker, remote);
  // Closing after a failed start is best effort; the start's own failure is what the caller must see.
  const ready = await remote.ready().catch(async (error: unknown) => {
    await client.close().catch(() => undefined);
    throw error;
  });
  if (!ready.ok) {
    await client.close().catch(() => undefined);
    throw rebuildError(ready.error);
  }
  return client;
}
