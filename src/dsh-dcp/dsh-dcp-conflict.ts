/**
 * The refusal to run beside dsh-dcp (docs/DSH-DCP.md §6): two DCP engines over one log would both write markers and
 * both own `compress`, `/dcp` and the `dcp:guidance` section. Whichever is mounted second is refused with an error
 * that names dsh-dcp: this plugin checks the host's plugin registry when it starts, turns dsh's "already registered"
 * refusals of those three names into the same error, and, once mounted, refuses a dsh-dcp fiber the moment cordis
 * announces it (`internal/plugin`), so `ctx.plugin(dshDcp)` throws before dsh-dcp's `apply` runs.
 */
import { COMPRESS_TOOL_NAME } from '../protocol/dcp/constants.js';
import { DshDcpError } from './dsh-dcp-error.js';
import type { DshFiber, DshPluginRuntime } from './dsh-dcp-host-shapes.js';

/** The names dsh-dcp's plugin runtime carries (its `name` export, or the package when a loader names it so). */
const DSH_DCP_NAMES: ReadonlySet<string> = new Set(['dsh-dcp', '@chiro2001/dsh-dcp']);

/** The registrations both engines make, by kind. */
const SHARED_NAMES: Readonly<Record<RegistrationKind, ReadonlySet<string>>> = {
  tool: new Set([COMPRESS_TOOL_NAME]),
  command: new Set(['dcp', 'dcp-compress']),
  section: new Set(['dcp:guidance']),
};

/** What a registration registers. */
export type RegistrationKind = 'tool' | 'command' | 'section';

const WAY_OUT =
  "the two are DCP engines over the same log; disable dsh-dcp's row in the profile (sessionctx's dsh/cordis.patch.yml does) or do not mount sessionctx/dsh-dcp";

/** The refusal, naming dsh-dcp and what gave it away. */
export function dshDcpConflict(evidence: string, cause?: unknown): DshDcpError {
  return new DshDcpError(
    'DSH_DCP_CONFLICT',
    `sessionctx/dsh-dcp cannot run beside dsh-dcp (@chiro2001/dsh-dcp): ${evidence}; ${WAY_OUT}`,
    cause === undefined ? undefined : { cause },
  );
}

/** True for dsh-dcp's plugin runtime. */
function isDshDcp(runtime: DshPluginRuntime | null | undefined): boolean {
  return runtime !== null && runtime !== undefined && typeof runtime.name === 'string' && DSH_DCP_NAMES.has(runtime.name);
}

/**
 * Throws the refusal when the host's registry holds a live fiber of dsh-dcp (mounted, or waiting for a service it
 * injects).
 * @throws DshDcpError `DSH_DCP_CONFLICT`
 */
export function refuseMountedDshDcp(runtimes: Iterable<DshPluginRuntime>): void {
  for (const runtime of runtimes) {
    if (isDshDcp(runtime) && [...runtime.fibers].length > 0) throw dshDcpConflict('dsh-dcp is already mounted in this host');
  }
}

/**
 * The `internal/plugin` listener: refuses a dsh-dcp fiber as cordis publishes it. Disposal notices (a fiber whose
 * `uid` is already cleared) pass.
 * @throws DshDcpError `DSH_DCP_CONFLICT`
 */
export function refuseAnnouncedDshDcp(fiber: DshFiber): void {
  if ((fiber as { readonly uid?: unknown }).uid === null) return;
  if (isDshDcp(fiber.runtime)) throw dshDcpConflict('dsh-dcp is being mounted after sessionctx/dsh-dcp');
}

/**
 * Runs one registration with dsh; when dsh refuses one of the shared names as already registered, throws the
 * refusal instead (with dsh's error as its cause). Other failures pass through.
 * @throws DshDcpError `DSH_DCP_CONFLICT`
 */
export function registerOwn<T>(kind: RegistrationKind, name: string, register: () => T): T {
  try {
    return register();
  } catch (error) {
    const duplicate = error instanceof Error && /already registered/.test(error.message);
    if (duplicate && SHARED_NAMES[kind].has(name)) throw dshDcpConflict(`the ${kind} "${name}" is already registered`, error);
    throw error;
  }
}
