/**
 * Crash repair (SESSION-LOG.md §9.12): the synthetic events that close a turn left open by a crash, computed
 * over the stored events every time a persisted log is inspected (and appended durably only when a writer
 * resumes the session).
 */
import type { SessionEvent } from './events.js';
import { deepFreeze } from './deep-freeze.js';
import { checkMessageShape } from './message-shape.js';

/** Text of a result for a call whose `tool/call` was recorded: it may have run. */
const OUTCOME_UNKNOWN_TEXT =
  'The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.';

/** Text of a result for a call that never reached its `tool/call`. */
const NOT_STARTED_TEXT = 'The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.';

/** A tool call requested by the model whose result is not logged yet. */
interface PendingCall {
  readonly step: unknown;
  callSeq?: number;
}

/** Event data read with plain property access (see `interruptedTurnClosers`). */
type Data = Readonly<Record<string, unknown>>;

/**
 * The synthetic closers of an interrupted final turn (SESSION-LOG.md §9.12), adopted (message shape checked
 * with subject `session event at seq <S>`) and deep-frozen; empty when the log is empty or its last turn is
 * closed. For each call still pending, in request order, a `tool/result` (`TOOL_OUTCOME_UNKNOWN` with
 * provenance when its `tool/call` was logged, else `TOOL_NOT_STARTED`); then a `step/end` if a step is open;
 * then `turn/end` with reason `interrupted`. Seqs continue the log; every closer takes the last event's time.
 * Closers are built with `surfaceOp` before `sourceEventSeqs`, as dsh builds them (§2.2).
 *
 * Event data is read with plain property access, as dsh does: `null` data on a `turn/start`, `step/start` or
 * `tool/call` (possible in a stored log) throws the native `TypeError`, which is a validation failure of the
 * inspection. `freeze` false: the closers are not frozen (a caller that only wants to know whether the reads throw).
 */
export function interruptedTurnClosers(events: readonly SessionEvent[], freeze = true): SessionEvent[] {
  let openTurn: unknown = null;
  let openStep: unknown = null;
  const pending = new Map<unknown, PendingCall>();
  for (const event of events) {
    const data = event.data as Data;
    switch (event.type) {
      case 'turn/start':
        openTurn = data['turn'];
        openStep = null;
        pending.clear();
        break;
      case 'turn/end':
        openTurn = null;
        openStep = null;
        pending.clear();
        break;
      case 'step/start':
        openStep = data['step'];
        break;
      case 'step/end':
        pending.clear();
        openStep = null;
        break;
      case 'assistant/message':
        for (const block of (data['message'] as Data)['content'] as Iterable<Data>) {
          if (block['type'] === 'tool-call') pending.set(block['id'], { step: data['step'] });
        }
        break;
      case 'tool/call': {
        const entry = pending.get(data['callId']);
        if (entry !== undefined) entry.callSeq = event.seq;
        break;
      }
      case 'tool/result':
        pending.delete(((data['message'] as Data)['source'] as Data)['callId']);
        break;
      default:
        // Other event types do not move the turn/step cursor.
        break;
    }
  }
  const last = events.at(-1);
  if (openTurn === null || last === undefined) return [];

  let seq = last.seq + 1;
  const time = last.time;
  const closers: SessionEvent[] = [];
  for (const [callId, { step, callSeq }] of pending) {
    const started = callSeq !== undefined;
    const message = {
      id: `interrupted-tool-result-${String(callId)}-${seq}`,
      role: 'user',
      source: { kind: 'tool', callId },
      content: [
        {
          type: 'tool-result',
          toolCallId: callId,
          isError: true,
          content: [{ type: 'text', text: started ? OUTCOME_UNKNOWN_TEXT : NOT_STARTED_TEXT }],
        },
      ],
    };
    closers.push({
      type: 'tool/result',
      seq: seq++,
      time,
      data: {
        turn: openTurn,
        step,
        message,
        error: started
          ? { name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' }
          : { name: 'ToolNotStartedError', code: 'TOOL_NOT_STARTED' },
      },
      surfaceOp: 'append',
      ...(started ? { sourceEventSeqs: [callSeq] } : {}),
    });
  }
  if (openStep !== null) {
    closers.push({ type: 'step/end', seq: seq++, time, data: { turn: openTurn, step: openStep } });
  }
  closers.push({ type: 'turn/end', seq: seq++, time, data: { turn: openTurn, reason: { kind: 'interrupted' } } });

  for (const closer of closers) {
    if (closer.type === 'tool/result') {
      checkMessageShape('tool/result', closer.data, `session event at seq ${closer.seq}`);
    }
    if (freeze) deepFreeze(closer);
  }
  return closers;
}
