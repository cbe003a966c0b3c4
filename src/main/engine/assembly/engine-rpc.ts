/**
 * The wire protocol between an engine-thread client and its engine (ARCHITECTURE.md §2 "comlink"):
 * calls carry a call id and, instead of an `AbortSignal` (which cannot cross threads), a flag saying
 * where the signal goes; aborts follow as separate `abort(callId, reason)` calls. Every answer is an
 * outcome envelope whose failure is a `WireError`, so typed errors keep name, code and cause.
 */
import type { WireError } from '../../../protocol/wire/wire-error.js';
import type { EngineProgress, TitleScanSummary } from './engine-types.js';

/** The engine methods callable with plain-data arguments. */
export type EngineMethod =
  | 'listSessions'
  | 'listSessionsReport'
  | 'readSurface'
  | 'readTitleSnapshots'
  | 'listCandidates'
  | 'candidates'
  | 'prepare'
  | 'prepareSized'
  | 'searchSessions';

/** The argument index of each method's `AbortSignal`. */
export const SIGNAL_INDEX: { readonly [M in EngineMethod]: number } = {
  listSessions: 0,
  listSessionsReport: 0,
  readSurface: 1,
  readTitleSnapshots: 1,
  listCandidates: 3,
  candidates: 3,
  prepare: 3,
  prepareSized: 3,
  searchSessions: 1,
};

/** One call to the engine thread. */
export interface EngineCall {
  readonly callId: number;
  readonly method: EngineMethod;
  /** The arguments with the signal slot left `undefined`. */
  readonly args: readonly unknown[];
  /** The caller passed a signal: the engine creates one for the slot. */
  readonly withSignal: boolean;
  /** The caller's signal was already aborted, with this reason. */
  readonly abortedWith?: WireError;
}

/** The answer to a call. */
export type RpcOutcome<V = unknown> = { readonly ok: true; readonly value: V } | { readonly ok: false; readonly error: WireError };

/** What the engine thread exposes through comlink. */
export interface EngineThreadApi {
  /** Resolves once the engine is built (or failed to build). */
  ready(): Promise<RpcOutcome<null>>;
  call(call: EngineCall): Promise<RpcOutcome>;
  /** Aborts the signal of a running call. */
  abort(callId: number, reason: WireError): void;
  /** `observeAllTitles`; `onProgress` arrives as a comlink proxy. */
  observeAllTitles(
    callId: number,
    withSignal: boolean,
    onProgress: ((progress: EngineProgress) => void) | undefined,
  ): Promise<RpcOutcome<TitleScanSummary>>;
  close(): Promise<void>;
}
