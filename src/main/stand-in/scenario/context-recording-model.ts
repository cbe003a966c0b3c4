/**
 * A model client that records the context window of each request in the log, as dsh does: a log-only
 * `request/context` event `{provider, model, contextWindow}` right after the step's `request/header`. The host writes
 * only the header (HOST.md §6.2), so a scenario's `contextWindow` would otherwise live in the running process alone
 * and a stored scenario session could not tell a later reader (`sessionctx dcp context`) which window it ran with.
 */
import type { ModelChunk, ModelClient, ModelRequest } from '../host/model-client.js';
import type { HostSession } from '../../host-api/host-api.js';
import type { RequestContextData } from '../../engine/dcp/recorded-context-windows.js';
import { REQUEST_CONTEXT_TYPE } from '../../engine/dcp/recorded-context-windows.js';

/**
 * Whether this step appended a `request/header` that no `request/context` follows yet. The agent appends the
 * header just before it streams (after `step/start` and the step's messages), so the backward scan stops within
 * the current step.
 */
function headerAwaitsContext(session: HostSession): boolean {
  const { events } = session;
  for (let at = events.length - 1; at >= 0; at -= 1) {
    const type = (events[at] as { type: string }).type;
    if (type === REQUEST_CONTEXT_TYPE || type === 'step/start') return false;
    if (type === 'request/header') return true;
  }
  return false;
}

/**
 * Wraps `model` so that every request whose step logged a new `request/header` first records
 * `session.requestContext()`'s window, when the session knows one. Streaming is otherwise `model`'s own.
 */
export function contextRecordingModel(model: ModelClient, session: HostSession): ModelClient {
  return {
    provider: model.provider,
    model: model.model,
    ...(model.contextWindow === undefined ? {} : { contextWindow: model.contextWindow }),
    stream(request: ModelRequest, options: { readonly signal: AbortSignal }): AsyncIterable<ModelChunk> {
      const context = session.requestContext();
      if (context?.contextWindow !== undefined && headerAwaitsContext(session)) {
        const data: RequestContextData = { provider: context.provider, model: context.model, contextWindow: context.contextWindow };
        session.append(REQUEST_CONTEXT_TYPE, data);
      }
      return model.stream(request, options);
    },
  };
}
