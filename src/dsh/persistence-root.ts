/**
 * The JSONL root of a dsh host, derived from its persistence backend (docs/DSH.md §3). dsh's JSONL backend lays a
 * session out as `<root>/<project dir>/<session id>/session.jsonl[.zstd]` (SESSION-LOG.md §2) and exposes a
 * side-effect-free `locate(header)`; locating a probe header without a cwd gives `<root>/_no-cwd/<probe>/…`, whose
 * third ancestor is the root and whose extension is the encoding.
 */
import { basename, dirname } from 'node:path';
import type { Compression } from '../protocol/storage-paths.js';
import type { SessionHeader, SessionId } from '../protocol/events.js';
import type { DshSessionPersistence } from './dsh-host-shapes.js';

/** A root found from the host. */
export interface PersistenceRoot {
  readonly root: string;
  readonly compression: Compression;
}

/** The artifact names of SESSION-LOG.md §2, by encoding. */
const ARTIFACT_NAMES: Readonly<Record<string, Compression>> = { 'session.jsonl': 'none', 'session.jsonl.zstd': 'zstd' };

/** A header no real session has: `locate` only computes a path from it. */
const PROBE: SessionHeader = { version: 0, id: 'sessionctx-root-probe' as SessionId, createdAt: 0 };

function hasLocate(value: unknown): value is DshSessionPersistence {
  return typeof value === 'object' && value !== null && typeof (value as { locate?: unknown }).locate === 'function';
}

/**
 * The root and encoding of the host's JSONL persistence, or `undefined` when the host has none (no persistence
 * service, a backend that is not JSONL, or a location that is not laid out as dsh's JSONL backend lays it out).
 */
export function rootFromPersistence(persistence: unknown): PersistenceRoot | undefined {
  if (!hasLocate(persistence)) return undefined;
  let location: ReturnType<DshSessionPersistence['locate']>;
  try {
    location = persistence.locate(PROBE);
  } catch {
    return undefined;
  }
  if (location === undefined || location.kind !== 'jsonl' || typeof location.path !== 'string') return undefined;
  const compression = ARTIFACT_NAMES[basename(location.path)];
  const sessionDir = dirname(location.path);
  if (compression === undefined || basename(sessionDir) !== PROBE.id) return undefined;
  return { root: dirname(dirname(sessionDir)), compression };
}
