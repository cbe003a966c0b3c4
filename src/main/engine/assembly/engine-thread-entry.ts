/**
 * The engine thread (ARCHITECTURE.md §2 "comlink"): builds an in-process engine from `workerData` and
 * serves it to the thread that spawned it, so a busy host keeps only its pre-step listener on its own
 * main thread. Started by `createEngineThread`; not imported anywhere else.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { expose, releaseProxy } from 'comlink';
import { rebuildError, serializeError } from '../../../protocol/wire/wire-error.js';
import { createEngine } from './create-engine.js';
import type { LocalSessionEngine } from './create-engine.js';
import type { EngineCall, EngineThreadApi, RpcOutcome } from './engine-rpc.js';
import { SIGNAL_INDEX } from './engine-rpc.js';
import type { EngineProgress, SessionEngine, SessionEngineOptions } from './engine-types.js';
import { nodeEndpoint } from './node-endpoint.js';
import type { SessionTitleObservation } from '../corpus/session-query.js';

if (parentPort === null) throw new Error('engine-thread-entry must run in a worker thread');

const building: Promise<LocalSessionEngine> = createEngine((workerData as { options: SessionEngineOptions }).options);
// A failed build is reported by ready(); keep it from being an unhandled rejection meanwhile.
building.catch(() => undefined);

/** The signals of running calls, by call id. */
const controllers = new Map<number, AbortController>();

/** A signal for one call: already aborted when the caller's was, else registered for `abort(callId)`. */
function controllerFor(callId: number, withSignal: boolean, abortedWith?: EngineCall['abortedWith']): AbortController | undefined {
  if (!withSignal) return undefined;
  const controller = new AbortController();
  if (abortedWith !== undefined) controller.abort(rebuildError(abortedWith));
  else controllers.set(callId, controller);
  return controller;
}

async function settle<V>(work: () => Promise<V>): Promise<RpcOutcome<V>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    return { ok: false, error: serializeError(error) };
  }
}

async function invoke(engine: SessionEngine, call: EngineCall, signal: AbortSignal | undefined): Promise<unknown> {
  const args = [...call.args];
  args[SIGNAL_INDEX[call.method]] = signal;
  const method = engine[call.method] as (...parameters: unknown[]) => Promise<unknown>;
  const value = await method.apply(engine, args);
  // Title observations carry their rejections as values; errors lose their codes in a structured clone, so
  // they cross as wire errors and the client rebuilds them.
  if (call.method === 'readTitleSnapshots') {
    return (value as SessionTitleObservation[]).map((observation) =>
      observation.status === 'rejected' ? { ...observation, reason: serializeError(observation.reason) } : observation,
    );
  }
  return value;
}

/** Forwards progress to the caller's proxied callback; a callback that fails or is gone does not fail the job. */
function reportProgress(onProgress: (progress: EngineProgress) => unknown, progress: EngineProgress): void {
  Promise.resolve(onProgress(progress)).catch(() => undefined);
}

const api: EngineThreadApi = {
  async ready() {
    return settle(async () => {
      await building;
      return null;
    });
  },
  async call(call) {
    const controller = controllerFor(call.callId, call.withSignal, call.abortedWith);
    try {
      return await settle(async () => invoke(await building, call, controller?.signal));
    } finally {
      controllers.delete(call.callId);
    }
  },
  abort(callId, reason) {
    controllers.get(callId)?.abort(rebuildError(reason));
  },
  async observeAllTitles(callId, withSignal, onProgress) {
    const controller = controllerFor(callId, withSignal);
    try {
      return await settle(async () =>
        (await building).observeAllTitles({
          ...(controller === undefined ? {} : { signal: controller.signal }),
          ...(onProgress === undefined ? {} : { onProgress: (progress: EngineProgress) => reportProgress(onProgress, progress) }),
        }),
      );
    } finally {
      controllers.delete(callId);
      (onProgress as unknown as { [releaseProxy]?: () => void } | undefined)?.[releaseProxy]?.();
    }
  },
  async close() {
    const engine = await building.catch(() => undefined);
    await engine?.close();
  },
};

expose(api, nodeEndpoint(parentPort));
