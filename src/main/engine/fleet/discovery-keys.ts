/**
 * The keys discovery matches a session by (SESSION-REFERENCE.md §7.3): its id, cwd and label lower-cased exactly as
 * the local reference service lower-cases them (`toLocaleLowerCase` in this process), computed when an artifact is
 * published. Matching then compares stored text with a lower-cased needle, so the database's collation and `lower()`
 * (which differ from JavaScript's for many scripts) never decide a match.
 */
import type { SessionHeader } from '../../../protocol/events.js';

/** The lower-cased match keys of one session. */
export interface DiscoveryKeys {
  readonly id: string;
  readonly cwd: string | undefined;
  /** The label (the latest title, else the id), lower-cased. */
  readonly label: string;
}

/** The keys of a header and its latest title (`undefined` when the log has none, so the label is the id). */
export function discoveryKeys(header: Pick<SessionHeader, 'id' | 'cwd'>, title: string | undefined): DiscoveryKeys {
  return {
    id: header.id.toLocaleLowerCase(),
    cwd: header.cwd?.toLocaleLowerCase(),
    label: (title ?? header.id).toLocaleLowerCase(),
  };
}
