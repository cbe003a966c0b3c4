/**
 * Why a typed id names no listed session (`mention`, `show`, `dcp`): a log that exists but cannot be read fails
 * with its own code (`SESSION_STORE_CORRUPT_HEADER`, `SESSION_STORE_NOT_A_FILE`, …), as an inspection of that id
 * names it; only an id with no artifact at all is `SESSION_QUERY_SESSION_NOT_FOUND`.
 */
import { basename, dirname } from 'node:path';
import { asSessionId } from '../../protocol/events.js';
import { errorCode } from '../../protocol/error-code.js';
import { sessionNotFoundError } from '../../protocol/layout-errors.js';
import { encodeSegment } from '../../protocol/storage-paths.js';
import { matchSessionIds } from '../../protocol/session-id-match.js';
import type { LocalSessionEngine } from '../engine/assembly/create-engine.js';

/**
 * The id a skipped artifact was stored under, when its session directory's name is an id as dsh writes it
 * (`<root>/<project>/<encodeSegment(id)>/session.jsonl[.zstd]`, and the id needs no escaping).
 */
function storedIdOf(path: string): string | undefined {
  const name = basename(dirname(path));
  return name !== '' && encodeSegment(name) === name ? name : undefined;
}

/**
 * The failure of inspecting an artifact stored under `typed` (or the one skipped artifact's id it is a prefix of: a
 * damaged log is not listed, so the listing's prefix resolution cannot name it), else not-found naming what was
 * typed.
 * @param engine - the listing (its problems name the skipped artifacts) and the store that inspects
 * @param typed - what the user typed
 * @param signal - cancels the inspection
 * @returns the error to throw (never throws itself, except on cancellation)
 */
export async function unlistedSessionError(
  engine: Pick<LocalSessionEngine, 'listSessionsReport' | 'store'>,
  typed: string,
  signal?: AbortSignal,
): Promise<unknown> {
  const notFound = sessionNotFoundError(typed);
  const store = engine.store;
  if (store === undefined || typed === '') return notFound;
  const { problems } = await engine.listSessionsReport(signal);
  const skipped = [...new Set(problems.flatMap((problem) => storedIdOf(problem.path) ?? []))];
  const matches = matchSessionIds(typed, skipped);
  try {
    await store.inspect(asSessionId(matches.length === 1 ? (matches[0] as string) : typed), signal);
  } catch (error) {
    signal?.throwIfAborted();
    return errorCode(error) === 'SESSION_QUERY_SESSION_NOT_FOUND' ? notFound : error;
  }
  // Inspectable but not listed (an id the listing reports as a duplicate): still no session the command may name.
  return notFound;
}
