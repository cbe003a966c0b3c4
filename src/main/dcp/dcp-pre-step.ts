/**
 * The DCP `agent/pre-step` listener (DCP.md §11.6, the marker part; §4.1). Registered without `prepend`, so the
 * session-reference listener stays outermost. It takes the downstream decision and, when the step will call the
 * model and the `compress` tool is registered, puts the boundary marker first.
 */
import type { PreStepDecision, PreStepListener } from '../host/pre-step-waterfall.js';
import { buildBoundaryMarker } from './boundary-marker.js';
import type { DcpRuntime } from './dcp-runtime.js';

/** The listener for `runtime`; `toolRegistered` is `dcp.enabled && compress.enabled` (§4.1 rule 1). */
export function createDcpPreStepListener(runtime: DcpRuntime, toolRegistered: boolean): PreStepListener {
  return async (payload, next): Promise<PreStepDecision> => {
    const decision = await next();
    if (payload.signal.aborted || decision.kind === 'reject') return decision;
    const messages = decision.messages;
    // §4.1 rule 3: a step-0 `enter([])` is a no-model-call turn and stays one.
    const willCall = payload.step > 0 || messages.length > 0;
    if (!willCall || !toolRegistered) return decision;
    const index = runtime.indexFor(payload.session);
    const marker = buildBoundaryMarker(index, payload.session, runtime.config, payload.turn, payload.step);
    return { kind: 'enter', messages: [marker, ...messages] };
  };
}
