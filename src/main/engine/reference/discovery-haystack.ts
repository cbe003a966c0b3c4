/**
 * Discovery's match keys (§7.3: the case-insensitive id, cwd and title of each candidate) of one ordered listing,
 * lower-cased once into a single string, so a keystroke is a few `indexOf` calls over contiguous text instead of a
 * map lookup and three substring tests per session (issue 27 item 3: 100,000 sessions).
 */
import type { SessionRecord } from '../corpus/session-query.js';

/**
 * Separates the fields. A needle without it can only match inside one field, so a hit never spans an id and its cwd
 * (a field may itself contain the separator — a hostile title — which only splits that field, never joins two).
 */
const SEPARATOR = '\u0000';

/** The lower-cased keys of an ordered listing, and where each record's keys start. */
export class DiscoveryHaystack {
  readonly #text: string;
  /** `#starts[i]` is where record `i`'s keys begin; `#starts[n]` is the text's length plus one. */
  readonly #starts: Int32Array;
  readonly #records: readonly SessionRecord[];
  readonly #labelOf: (record: SessionRecord) => string;

  /**
   * Lower-cases each record's id, cwd and label (`labelOf`, the label discovery shows) once, field by field, as a
   * per-record test would.
   */
  constructor(records: readonly SessionRecord[], labelOf: (record: SessionRecord) => string) {
    this.#records = records;
    this.#labelOf = labelOf;
    const parts: string[] = [];
    const starts = new Int32Array(records.length + 1);
    let offset = 0;
    for (let index = 0; index < records.length; index += 1) {
      const record = records[index] as SessionRecord;
      starts[index] = offset;
      const id = record.header.id.toLocaleLowerCase();
      const cwd = record.header.cwd?.toLocaleLowerCase() ?? '';
      const label = labelOf(record).toLocaleLowerCase();
      parts.push(id, cwd, label);
      offset += id.length + cwd.length + label.length + 3;
    }
    starts[records.length] = offset;
    this.#text = parts.join(SEPARATOR);
    this.#starts = starts;
  }

  /** The records this haystack was made from, in order. */
  get records(): readonly SessionRecord[] {
    return this.#records;
  }

  /**
   * The first `limit` records, in order, whose lower-cased id, cwd or label contains `needle` (already lower-cased,
   * not empty).
   */
  matching(needle: string, limit: number): SessionRecord[] {
    if (needle.includes(SEPARATOR)) return this.#matchingEachRecord(needle, limit);
    const found: SessionRecord[] = [];
    let from = 0;
    while (found.length < limit) {
      const at = this.#text.indexOf(needle, from);
      if (at < 0) break;
      const index = this.#recordAt(at);
      found.push(this.#records[index] as SessionRecord);
      from = this.#starts[index + 1] as number;
    }
    return found;
  }

  /** The record whose keys hold text position `at` (the last start at or before it). */
  #recordAt(at: number): number {
    let low = 0;
    let high = this.#records.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if ((this.#starts[middle] as number) <= at) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** A needle holding the separator: each field tested on its own, as the joined text cannot. */
  #matchingEachRecord(needle: string, limit: number): SessionRecord[] {
    const found: SessionRecord[] = [];
    for (const record of this.#records) {
      if (found.length === limit) break;
      const { id, cwd } = record.header;
      if (
        id.toLocaleLowerCase().includes(needle) ||
        (cwd?.toLocaleLowerCase().includes(needle) ?? false) ||
        this.#labelOf(record).toLocaleLowerCase().includes(needle)
      ) {
        found.push(record);
      }
    }
    return found;
  }
}
