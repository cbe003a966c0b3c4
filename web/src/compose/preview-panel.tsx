/**
 * What the model would receive for the message (issue 18, Preview): the rewritten text, and per source the kept and
 * omitted messages and the bytes of its snapshot against the per-source budget, as a meter.
 */
import type { JSX } from 'preact';
import type { WebPreview } from '../../../src/protocol/web/web-api.js';
import { formatBytes, plural } from '../format.js';

/** The text "Copy for another agent" puts on the clipboard: the prepared message, then the snapshot. */
export function clipboardText(preview: WebPreview): string {
  return preview.context === undefined ? preview.content : `${preview.content}\n\n${preview.context}`;
}

/** The preview of a prepared message. */
export function PreviewPanel({ preview }: { preview: WebPreview }): JSX.Element {
  return (
    <section class="preview" aria-labelledby="preview-heading">
      <h2 id="preview-heading">What the model receives</h2>
      <h3>Message</h3>
      <pre class="preview-message">{preview.content}</pre>
      {preview.sources.length === 0 ? (
        <p class="preview-none">The message references no session; the model receives it as written.</p>
      ) : (
        <>
          <h3>Referenced sessions</h3>
          <ul class="preview-sources" aria-label="Referenced sources">
            {preview.sources.map((source) => {
              const meterId = `budget-${source.sessionId}`;
              return (
                <li key={source.sessionId} class="preview-source" data-session-id={source.sessionId}>
                  <p class="source-line">
                    <strong>{source.label}</strong>{' '}
                    <span class="source-counts">
                      {source.keptMessages} kept · {source.omittedMessages} omitted
                      {source.truncated ? ' · truncated' : ''}
                      {source.compacted ? ' · compacted' : ''}
                    </span>
                  </p>
                  <label class="budget" for={meterId}>
                    <span class="budget-text">
                      {formatBytes(source.renderedBytes)} of {formatBytes(source.budgetBytes)} budget
                      {source.omittedBytes > 0 ? ` · ${formatBytes(source.omittedBytes)} omitted` : ''}
                    </span>
                    <meter id={meterId} min={0} max={source.budgetBytes} value={source.renderedBytes} high={source.budgetBytes * 0.9}>
                      {formatBytes(source.renderedBytes)}
                    </meter>
                  </label>
                </li>
              );
            })}
          </ul>
          <p class="hint">
            {plural(preview.sources.length, 'source', 'sources')} · context message budget {formatBytes(preview.totalBudgetBytes)}
          </p>
        </>
      )}
      {preview.context === undefined ? null : (
        <details class="preview-context">
          <summary>Snapshot sent as background</summary>
          <pre class="bounded">{preview.context}</pre>
        </details>
      )}
    </section>
  );
}
