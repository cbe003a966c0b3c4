/** Display formats shared by the views: sizes, times, counts. */

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB'] as const;

/**
 * A byte count for people: `812 B`, `8.4 KB`, `1.2 MB` (powers of 1024).
 *
 * @param bytes a non-negative count
 */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} ${BYTE_UNITS[0]}` : `${value < 10 ? value.toFixed(1) : Math.round(value)} ${BYTE_UNITS[unit]}`;
}

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * A time for people, in the browser's locale and zone.
 *
 * @param ms milliseconds since the epoch
 */
export function formatTime(ms: number): string {
  return Number.isFinite(ms) ? DATE_TIME.format(new Date(ms)) : '—';
}

/**
 * The machine-readable form of a time for `<time datetime>`.
 *
 * @param ms milliseconds since the epoch
 */
export function isoTime(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : '';
}

/**
 * `1 message`, `3 messages`.
 *
 * @param n the count
 * @param one the singular noun
 * @param many the plural noun
 */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
