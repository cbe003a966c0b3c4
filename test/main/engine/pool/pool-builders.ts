/**
 * Shared builders of the pool tests: services over the dsh fixture corpus with either renderer, and a
 * process-wide real worker pool that test files create once and close in `afterAll`.
 */
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../../../../src/main/engine/corpus/session-query.js';
import type { LiveLogTracker } from '../../../../src/main/engine/live/live-log-tracker.js';
import { InThreadTaskRunner } from '../../../../src/main/engine/pool/in-thread-runner.js';
import { PoolSourceRenderer } from '../../../../src/main/engine/pool/pool-source-renderer.js';
import type { PoolRendererStorage } from '../../../../src/main/engine/pool/pool-source-renderer.js';
import type { TaskRunner } from '../../../../src/main/engine/pool/task-runner.js';
import { WorkerPool } from '../../../../src/main/engine/pool/worker-pool.js';
import type { SessionReferenceConfigInput } from '../../../../src/main/engine/reference/reference-config.js';
import { SessionReferenceService } from '../../../../src/main/engine/reference/session-reference-service.js';
import type { SessionStorage } from '../../../../src/main/engine/corpus/session-storage.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { FAULT_ENTRY } from '../../../support/fault-task.js';
import type { FaultInThreadRunner, FaultPool } from '../../../support/fault-task.js';

/** Which renderer a parametrised test uses. */
export type RendererKind = 'in-thread' | 'pool' | 'in-thread runner';

/** A service and what it was built from. */
export interface ServiceSetup {
  readonly service: SessionReferenceService;
  readonly registry: InMemoryLiveRegistry;
  readonly query: SessionQuery;
}

/**
 * A reference service over `registry` and `storage` whose sources are rendered by `kind`: the
 * in-thread renderer over `SessionQuery`, or the pool renderer on `runner`.
 */
export function serviceWith(
  kind: RendererKind,
  runner: TaskRunner | undefined,
  options: {
    registry?: InMemoryLiveRegistry;
    storage?: SessionStorage & Partial<PoolRendererStorage>;
    config?: SessionReferenceConfigInput;
    liveLogs?: LiveLogTracker;
  } = {},
): ServiceSetup {
  const registry = options.registry ?? new InMemoryLiveRegistry();
  const query = new SessionQuery(options.storage === undefined ? { registry } : { registry, storage: options.storage });
  const config = options.config ?? {};
  if (kind === 'in-thread') return { service: new SessionReferenceService({ sessionQuery: query, config }), registry, query };
  if (runner === undefined) throw new Error('a pool renderer needs a runner');
  const storage = options.storage as PoolRendererStorage | undefined;
  const renderer = new PoolSourceRenderer({
    runner,
    registry,
    ...(storage === undefined ? {} : { storage }),
    ...(options.liveLogs === undefined ? {} : { liveLogs: options.liveLogs }),
  });
  return { service: new SessionReferenceService({ sessionQuery: query, config, renderer }), registry, query };
}

/** Opens the fixture store of one encoding. */
export function openStore(root: string, compression: 'none' | 'zstd'): Promise<JsonlSessionStore> {
  return JsonlSessionStore.open({ root, compression });
}

/** A real pool of two threads on the tests' worker entry, which serves the fault-injection task too. */
export function testPool(size = 2): FaultPool {
  return new WorkerPool({ size }, FAULT_ENTRY);
}

/** The in-thread runner with the fault-injection task. */
export function inThreadRunner(): FaultInThreadRunner {
  return new InThreadTaskRunner({}, FAULT_ENTRY);
}
