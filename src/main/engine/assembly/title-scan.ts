/** `observeAllTitles` (the `index` command): every session's title observed once, in batches, with progress. */
import type { SessionQuery } from '../corpus/session-query.js';
import type { EngineDiscovery } from './engine-discovery.js';
import type { ObserveAllTitlesOptions, TitleScanSummary } from './engine-types.js';

/**
 * Observes the title of every listed session, `batchSize × 4` at a time, reporting progress after each batch.
 * @returns how many sessions were listed, titled, and failed.
 */
export async function observeAllTitles(
  discovery: Pick<EngineDiscovery, 'listSessions'> & { readonly titles: Pick<SessionQuery, 'readTitleSnapshots'> },
  batchSize: number | undefined,
  scan: ObserveAllTitlesOptions = {},
): Promise<TitleScanSummary> {
  const ids = (await discovery.listSessions(scan.signal)).map((record) => record.header.id);
  let titled = 0;
  let failed = 0;
  const step = Math.max(1, batchSize ?? 16) * 4;
  for (let done = 0; done < ids.length; done += step) {
    const observations = await discovery.titles.readTitleSnapshots(ids.slice(done, done + step), scan.signal);
    for (const observation of observations) {
      if (observation.status === 'rejected') failed += 1;
      else if (observation.value.title !== undefined) titled += 1;
    }
    scan.onProgress?.({ done: Math.min(ids.length, done + step), total: ids.length });
  }
  return { sessions: ids.length, titled, failed };
}
