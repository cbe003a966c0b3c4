/**
 * Context (issue 18): what pruning and compaction did to a long session — its estimated context over the log with
 * the drops marked (each a link to its message), the table of DCP blocks and `/dcp stats` as labelled figures. The
 * heading is the session's title (issue 28), not its id.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { WebDcpSummary } from '../../../src/protocol/web/web-api.js';
import { call, isAbort } from '../api/client.js';
import { ContextChart } from '../context/context-chart.js';
import { DcpStatsTable } from '../context/dcp-stats-table.js';
import { hrefOf } from '../router.js';

/** The Context view of one session. */
export function ContextView({ sessionId }: { sessionId: string }): JSX.Element {
  const [summary, setSummary] = useState<WebDcpSummary | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  useEffect(() => {
    const controller = new AbortController();
    setSummary(undefined);
    setFailure(undefined);
    call('dcp/summary', { sessionId }, controller.signal).then(setSummary, (error: unknown) => {
      if (!isAbort(error)) setFailure(error instanceof Error ? error.message : String(error));
    });
    return () => controller.abort();
  }, [sessionId]);

  return (
    <main class="view context-view" aria-labelledby="context-heading">
      <h1 id="context-heading">{summary?.label ?? 'Context'}</h1>
      <p class="session-meta">
        Context of <a href={hrefOf({ view: 'session', sessionId })}>{sessionId}</a>
      </p>
      {failure !== undefined ? (
        <p role="alert" class="error">
          Could not summarise the session: {failure}
        </p>
      ) : null}
      {summary === undefined && failure === undefined ? <p role="status">Replaying the log…</p> : null}
      {summary !== undefined ? (
        <>
          <ContextChart sessionId={sessionId} points={summary.points} drops={summary.drops} />
          <h2>DCP blocks</h2>
          {summary.blocks.length === 0 ? (
            <p class="hint">No DCP blocks in this session.</p>
          ) : (
            <table class="blocks">
              <caption class="visually-hidden">DCP blocks</caption>
              <thead>
                <tr>
                  <th scope="col">Block</th>
                  <th scope="col">Topic</th>
                  <th scope="col">Range</th>
                  <th scope="col">Tokens saved</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {summary.blocks.map((block) => (
                  <tr key={block.id} data-block-id={block.id}>
                    <td>{block.id}</td>
                    <td>{block.topic}</td>
                    <td>
                      seq {block.fromSeq}–{block.toSeq}
                    </td>
                    <td class="number">{block.tokensSaved}</td>
                    <td>
                      <span class={`state state-${block.state}`}>{block.state}</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h2>/dcp stats</h2>
          <DcpStatsTable stats={summary.stats} text={summary.statsText} />
        </>
      ) : null}
    </main>
  );
}
