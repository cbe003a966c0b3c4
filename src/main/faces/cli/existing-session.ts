/**
 * A session the command line names that must exist (`mention`, `show`, `dcp`): the typed id or unambiguous prefix
 * resolved through the listing, and when the listing has no such session, the real reason — a log that exists but
 * cannot be read fails with its own code (`SESSION_STORE_CORRUPT_HEADER`, `SESSION_STORE_NOT_A_FILE`, …), as an
 * inspection of that id names it; only an id with no artifact at all is `SESSION_QUERY_SESSION_NOT_FOUND`.
 */
import { basename, dirname } from 'node:path';
import { asSessionId } from '../../../protocol/events.js';
import { errorCode } from '../../../protocol/error-code.js';
import { sessionNotFoundError } from '../../../protocol/layout-errors.js';
import { encodeSegment } from '../../../protocol/storage-paths.js';
import type { SessionRecord } from '../../engine/corpus/session-query.js';
import type { LocalSessionEngine } from '../../engine/assembly/create-engine.js';
import { matchSessionIds, resolveSessionRecord } from './session-id-prefix.js';

/**
 * The id a skipped artifact was stored under, when its session directory's name is an id as dsh writes it
 * (`<root>/<project>/<encodeSegment(id)>/session.jsonl[.zstd]`, and the id needs no escaping).
 */
function storedIdOf(path: string): string | undefined {
  const name = basename(dirname(path));
  return name !== '' && encodeSegment(name) === name ? name : undefined;
}

/**
 * The id to inspect for `typed`: itself, or the one id of a skipped artifact that it is a prefix of (a damaged
 * log is not listed, so the listing's prefix resolution cannot name it).
 */
async function idToInspect(engine: LocalSessionEngine, typed: string, signal: AbortSignal | undefined): Promise<string> {
  const { problems } = await engine.listSessionsReport(signal);
  const skipped = [...new Set(problems.flatMap((problem) => storedIdOf(problem.path) ?? []))];
  const matches = matchSessionIds(typed, skipped);
  return matches.length === 1 ? (matches[0] as string) : typed;
}

/**
 * Why `typed` names no listed session: the failure of inspecting an artifact stored under that id (damaged,
 * unreadable, not a file), else `SESSION_QUERY_SESSION_NOT_FOUND` naming what was typed.
 * @param engine - the engine whose store is asked.
 * @param typed - what the user typed.
 * @param signal - cancels the inspection.
 * @returns the error to throw (never throws itself, except on cancellation).
 */
export async function unlistedSessionError(engine: LocalSessionEngine, typed: string, signal?: AbortSignal): Promise<unknown> {
  const notFound = sessionNotFoundError(typed);
  const store = engine.store;
  if (store === undefined || typed === '') return notFound;
  try {
    await store.inspect(asSessionId(await idToInspect(engine, typed, signal)), signal);
  } catch (error) {
    signal?.throwIfAborted();
    return errorCode(error) === 'SESSION_QUERY_SESSION_NOT_FOUND' ? notFound : error;
  }
  // Inspectable but not listed (an id the listing reports as a duplicate): still no session the command may name.
  return notFound;
}

/**
 * Resolves `typed` (an exact id, or an unambiguous prefix with or without `session-`) to a listed session.
 * @param engine - the engine whose listing decides.
 * @param typed - what the user typed.
 * @param signal - cancels the listing.
 * @returns the listed record.
 * @throws CliError `CLI_SESSION_ID_AMBIGUOUS` when several ids match.
 * @throws the store's error for a damaged or unreadable log of that id, else SessionLogError
 *   `SESSION_QUERY_SESSION_NOT_FOUND`.
 */
export async function requireListedSession(engine: LocalSessionEngine, typed: string, signal?: AbortSignal): Promise<SessionRecord> {
  const record = await resolveSessionRecord(engine, typed, signal);
  if (record !== undefined) return record;
  throw await unlistedSessionError(engine, typed, signal);
}
