/**
 * Mounts the session-reference service on the host (SESSION-REFERENCE.md §13.1): its pre-step
 * listener joins the `agent/pre-step` waterfall with `prepend`, so it is outermost and sees the
 * final decision of every other listener.
 */
import type { Plugin, PluginContext, PreStepDecision, PreStepPayload } from '../../host-api/host-api.js';
import type { UserMessage } from '../../../protocol/user-message.js';
import type { SessionReferenceService } from './session-reference-service.js';

/** The plugin name the host sees. */
export const SESSION_REFERENCE_PLUGIN = 'session-reference';

/** A host plugin that runs `service.preStepListener` outermost at every pre-step. */
export function sessionReferencePlugin(service: SessionReferenceService): Plugin {
  return {
    name: SESSION_REFERENCE_PLUGIN,
    apply(context: PluginContext): void {
      const unsubscribe = context.on(
        'agent/pre-step',
        async (payload: PreStepPayload, next: () => Promise<PreStepDecision>): Promise<PreStepDecision> => {
          const decision = await service.preStepListener(
            {
              agent: { id: payload.session.id, session: { header: payload.session.header } },
              messages: payload.messages,
              turn: payload.turn,
              step: payload.step,
              signal: payload.signal,
            },
            next,
          );
          // The listener only ever adds frozen user messages (rewritten direct messages and snapshots).
          return decision.kind === 'reject' ? decision : { kind: 'enter', messages: decision.messages as readonly UserMessage[] };
        },
        { prepend: true },
      );
      context.dispose(unsubscribe);
    },
  };
}
