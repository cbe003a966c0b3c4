/**
 * `/dcp stats` as a table of labelled figures (issue 28): the numbers the catalog's DCP summary carries (the `stats`
 * of `sessionctx dcp stats --json`), each row a label and its value, token figures marked as estimates. The text as
 * the command prints it stays one click away, for comparing with a terminal.
 */
import type { JSX } from 'preact';
import type { WebDcpStats } from '../../../src/protocol/web/web-api.js';

/** A whole number with thousands separators. */
function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** An estimated token figure. */
function tokens(value: number): string {
  return `~${count(value)} tokens`;
}

/** What the domain line says: this server keeps no DCP plugin storage, which is the only reason it is unavailable. */
function domainText(domain: WebDcpStats['domain']): string {
  switch (domain.status) {
    case 'current':
      return 'current';
    case 'stale':
      return `stale${domain.reason === undefined ? '' : ` (${domain.reason})`}`;
    case 'unavailable':
      return domain.reason === 'storage not wired'
        ? 'not kept here: this server reads stored logs and has no DCP plugin storage'
        : `unavailable${domain.reason === undefined ? '' : ` (${domain.reason})`}`;
    default: {
      const never: never = domain.status;
      return String(never);
    }
  }
}

/** The rows of the table: `[key, label, value]`. */
function rows(stats: WebDcpStats): [string, string, string][] {
  const { invalidations } = stats;
  const total = invalidations.dcp + invalidations.native + invalidations.mixed;
  const reduction = stats.historyReduction;
  return [
    ['blocks', 'DCP blocks (ever / active)', `${count(stats.blocks.historical)} / ${count(stats.blocks.active)}`],
    ['surfaceTokens', 'Current surface', tokens(stats.surfaceTokens)],
    ['historyReduction', 'History reduction', reduction < 0 ? `${tokens(reduction)} (overhead)` : tokens(reduction)],
    ['shadowedTokens', 'Shadowed by blocks', tokens(stats.shadowedTokens)],
    ['checkpointTokens', 'Block summaries', tokens(stats.checkpointTokens)],
    ['pruneTokens', 'Pruned', tokens(stats.pruneTokens)],
    ['cleanupTokens', 'Cleanup savings', tokens(stats.cleanupTokens)],
    ['expansionTokens', 'Expansion delta', tokens(stats.expansionTokens)],
    ['markerTokens', 'Markers', tokens(stats.markerTokens)],
    ['pruneReplacements', 'Prune replacements', count(stats.pruneReplacements)],
    ['inlineCleanups', 'Inline cleanups', count(stats.inlineCleanups)],
    [
      'invalidations',
      'Prefix invalidations',
      `${count(total)} (DCP ${count(invalidations.dcp)}, native ${count(invalidations.native)}, mixed ${count(invalidations.mixed)})`,
    ],
    [
      'recentInvalidations',
      'Recent invalidations',
      stats.recentInvalidations.length === 0
        ? 'none'
        : stats.recentInvalidations
            .map((line) => `seq ${line.firstSeq} at position ${line.position}: ${tokens(line.reReadTokens)} re-read (${line.cause})`)
            .join('; '),
    ],
    ['domain', 'Cross-session domain', domainText(stats.domain)],
  ];
}

/** The table, and the command's own text behind a disclosure. */
export function DcpStatsTable({ stats, text }: { stats: WebDcpStats | undefined; text: string }): JSX.Element {
  return (
    <>
      {stats === undefined ? (
        <p class="hint">{text}</p>
      ) : (
        <table class="stats-table">
          <caption class="visually-hidden">/dcp stats</caption>
          <tbody>
            {rows(stats).map(([key, label, value]) => (
              <tr key={key} data-figure={key}>
                <th scope="row">{label}</th>
                <td>{value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {stats === undefined ? null : (
        <details class="stats-text">
          <summary>As sessionctx dcp stats prints it</summary>
          <pre class="stats">{text}</pre>
        </details>
      )}
    </>
  );
}
