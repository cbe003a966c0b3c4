// The engine's two discovery calls take their arguments in one order, the signal last like every engine read
// (issue 14 item 7): `listCandidates(agent, query, limit, signal)` and `candidates(agent, query, limit, signal)`,
// in-thread and across the engine thread (whose wire protocol moves the signal by its argument index).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { createEngineThread } from '../../../../src/main/engine/assembly/engine-thread.js';
import type { SessionEngine, SessionEngineOptions } from '../../../../src/main/engine/assembly/engine-types.js';
import { RAW_ROOT } from '../../../support/fixtures.js';

const FACTORIES: ReadonlyArray<[string, (options: SessionEngineOptions) => Promise<SessionEngine>]> = [
  ['createEngine (no workers)', (options) => createEngine({ ...options, workers: false })],
  ['createEngineThread', (options) => createEngineThread(options)],
];

const TARGET = { id: 'new-session', session: { header: {} } };

describe.each(FACTORIES)('%s', (_name, make) => {
  let engine: SessionEngine;
  beforeAll(async () => {
    engine = await make({ root: RAW_ROOT, compression: 'none', poolSize: 1 });
  });
  afterAll(async () => {
    await engine.close();
  });

  it('candidates(agent, query, limit) limits like listCandidates(agent, query, limit)', async () => {
    const all = await engine.listCandidates(TARGET, '');
    expect(all.length).toBeGreaterThan(2);
    const listed = await engine.listCandidates(TARGET, '', 2);
    const withMentions = await engine.candidates(TARGET, '', 2);
    expect(withMentions.map((candidate) => candidate.sessionId)).toEqual(listed.map((candidate) => candidate.sessionId));
    expect(withMentions).toHaveLength(2);
  });

  it('the signal is the fourth argument of both, and an aborted one rejects both alike', async () => {
    const controller = new AbortController();
    controller.abort(new Error('superseded keystroke'));
    const failure = (promise: Promise<unknown>): Promise<unknown> =>
      promise.then(
        () => 'resolved',
        (error: unknown) => (error as { code?: unknown }).code ?? (error as Error).message,
      );
    const listed = await failure(engine.listCandidates(TARGET, '', 2, controller.signal));
    expect(listed).not.toBe('resolved');
    expect(await failure(engine.candidates(TARGET, '', 2, controller.signal))).toBe(listed);
  });
});
