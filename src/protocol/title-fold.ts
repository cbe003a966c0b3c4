/**
 * The session title fold (SESSION-LOG.md §6.2): the last `session/title` event of an observation wins, copied
 * into a frozen snapshot exactly the way dsh copies it — including the failures dsh produces on malformed data.
 */
import type { SessionEvent, SessionTitleSnapshot, TitleSource } from './events.js';
import { deepFreeze } from './deep-freeze.js';

/** Title data read with plain property access (see `foldTitle`). */
type Data = Readonly<Record<string, unknown>>;

/**
 * dsh's defensive copy of a title source: `fallback` and `user` become fresh `{kind}` records, `provider`
 * copies `provider` and, only when `model` is not `undefined`, a shallow spread of `model`. A missing or null
 * source throws the native `TypeError`; any other kind throws an `Error`.
 */
function copyTitleSource(source: unknown): TitleSource {
  const record = source as Data;
  const kind = record['kind'];
  switch (kind) {
    case 'fallback':
      return { kind: 'fallback' };
    case 'user':
      return { kind: 'user' };
    case 'provider': {
      const model = record['model'];
      return {
        kind: 'provider',
        provider: record['provider'] as string,
        ...(model === undefined ? {} : { model: { ...(model as object) } as { provider: string; model: string } }),
      };
    }
    default:
      throw new Error(`unreachable variant in SessionTitleSource: ${JSON.stringify(source) ?? String(source)}`);
  }
}

/**
 * Folds the title of one observation (SESSION-LOG.md §6.2): the last event of type `session/title` in log
 * order becomes `{title, messageSeqs, source, eventSeq, updatedAt}` (that key order), deep-frozen; no title
 * event gives `undefined`. `title` is copied as is; `messageSeqs` is spread as an iterable, so a missing,
 * null, numeric or plain-object value throws a native `TypeError` and a string spreads into its characters;
 * non-object `data` also throws a `TypeError`. The thrown error is the observation's failure.
 */
export function foldTitle(events: readonly SessionEvent[]): SessionTitleSnapshot | undefined {
  let event: SessionEvent | undefined;
  for (let index = events.length - 1; index >= 0; index--) {
    const candidate = events[index] as SessionEvent;
    if (candidate.type === 'session/title') {
      event = candidate;
      break;
    }
  }
  if (event === undefined) return undefined;
  // Plain property reads and spreads on purpose: malformed data fails with the same TypeErrors as in dsh.
  const data = event.data as Data;
  const title = data['title'] as string;
  const messageSeqs = [...(data['messageSeqs'] as Iterable<unknown>)];
  const source = copyTitleSource(data['source']);
  return deepFreeze({ title, messageSeqs, source, eventSeq: event.seq, updatedAt: event.time });
}
