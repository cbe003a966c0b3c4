// The typed event vocabulary (protocol/event-map.ts): the map covers the known types of SESSION-LOG.md §3.1, the
// host's typed append checks payloads at compile time, and a plugin's own type joins by declaration merging.
import { describe, expect, it } from 'vitest';
import type { KnownEventType } from '../../../../src/protocol/event-map.js';
import { KNOWN_EVENT_TYPES } from '../../../../src/protocol/events.js';
import { newSession } from './host-builders.js';

declare module '../../../../src/protocol/event-map.js' {
  interface SessionEventMap {
    /** Declared by this test, the way a plugin declares its events. */
    'event-map-test/note': { readonly text: string };
  }
}

/** Every key of the map, listed by hand: `satisfies` fails the build when a key is missing or unknown. */
const MAP_KEYS = {
  'agent-preset/selected': true,
  'agent/inbox/spliced': true,
  'approval/asked': true,
  'approval/decided': true,
  'approval/policy': true,
  'assistant/chunk': true,
  'assistant/message': true,
  'command/done': true,
  'command/run': true,
  'compaction/end': true,
  'compaction/prune': true,
  'compaction/start': true,
  'compaction/summary': true,
  'feedback/record': true,
  'goal/change': true,
  'hook/invoked': true,
  'hook/result': true,
  'llm/retry': true,
  'llm/retry-started': true,
  'permission/preset': true,
  'plan/mode': true,
  'request/context': true,
  'request/header': true,
  'sandbox/mode': true,
  'schedule/change': true,
  'session/end-seed': true,
  'session/title': true,
  'session/title-llm-request': true,
  'step/end': true,
  'step/start': true,
  'subagent/descriptor': true,
  'team/member': true,
  'team/message/delivered': true,
  'team/message/queued': true,
  'team/task': true,
  'todo/write': true,
  'tool-workflow/agent-end': true,
  'tool-workflow/agent-start': true,
  'tool-workflow/run-end': true,
  'tool-workflow/run-start': true,
  'tool/call': true,
  'tool/code-dispatch': true,
  'tool/code-dispatch-start': true,
  'tool/result': true,
  'turn/end': true,
  'turn/start': true,
  'user/message': true,
  'web/deepseek-search-llm-request': true,
  'event-map-test/note': true,
} satisfies Record<KnownEventType, true>;

describe('SessionEventMap', () => {
  it('has a payload type for each of the 48 known types of SESSION-LOG.md §3.1, and for declared types', () => {
    const keys = Object.keys(MAP_KEYS)
      .filter((key) => key !== 'event-map-test/note')
      .sort();
    expect(keys).toEqual([...KNOWN_EVENT_TYPES].sort());
  });

  it('types append: a payload of the wrong shape and an undeclared type do not compile', () => {
    const session = newSession();
    // @ts-expect-error `turn` must be a number
    expect(() => session.append('turn/start', { turn: 'one' })).toThrow();
    // @ts-expect-error an event type outside the map
    expect(() => session.append('event-map-test/undeclared', {})).toThrow(/unknown session event type/);
    const event = session.append('turn/start', { turn: 1 });
    const turn: number = event.data.turn;
    expect(turn).toBe(1);
  });

  it('accepts a declared type on a host whose layers admit it, with its payload typed', () => {
    const session = newSession('s', { validationLayers: () => [] });
    const event = session.append('event-map-test/note', { text: 'hello' });
    const text: string = event.data.text;
    expect(text).toBe('hello');
    expect(session.events).toEqual([event]);
  });
});
