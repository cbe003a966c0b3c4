/**
 * The tests' piscina worker entry: every production task of `src/workers/entry.ts`, re-exported unchanged, plus the
 * fault-injection task `testFault` (`fault-task.ts`). Pools built with `FAULT_ENTRY` load this module instead of
 * production's.
 */
import type { TaskOutcome } from '../../src/protocol/wire/task-shapes.js';
import { serveTask } from '../../src/workers/serve-task.js';
import type { TaskRequest } from '../../src/workers/tasks/task-request.js';
import { testFaultTask } from './fault-task.js';
import type { TestFaultPayload, TestFaultValue } from './fault-task.js';

export { dcpLedger, inspect, observeTitles, readSource, searchDocuments } from '../../src/workers/entry.js';

/** `testFault`: fault injection for the pool tests. */
export function testFault(request: TaskRequest<TestFaultPayload>): Promise<TaskOutcome<TestFaultValue>> {
  return serveTask(request, testFaultTask);
}
