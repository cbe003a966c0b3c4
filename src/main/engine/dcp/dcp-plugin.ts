/**
 * The DCP plugin (DCP.md §3–§7, §10, §16): validates `ctx.config('dcp')`, then mounts the per-session index, the
 * pre-step marker listener, the `compress` tool and the static guidance section. An invalid configuration is
 * logged and nothing is mounted, so the agent runs without DCP.
 */
import type { DcpConfig, ResolvedDcpConfig } from '../../../protocol/dcp/config.js';
import { resolveDcpConfig } from '../../../protocol/dcp/config.js';
import { errorMessage } from '../../../protocol/errors.js';
import { DcpConfigError } from '../../../protocol/dcp/config-error.js';
import { guidanceSection } from '../../../protocol/dcp/guidance.js';
import type { Plugin, PluginContext } from '../../host-api/host-api.js';
import { createCompressTool } from './compress-tool.js';
import { createDcpCommands } from './dcp-commands.js';
import { createDcpPreStepListener } from './dcp-pre-step.js';
import { DcpRuntime } from './dcp-runtime.js';
import type { FullLogTasks, FullLogTasksOptions } from './ledger-service.js';
import { resolveFullLogTasks } from './ledger-service.js';
import { DcpWorkCounters } from './work-counters.js';

/** `dcpPlugin` options. */
export interface DcpPluginOptions {
  /** Counters to share (benchmarks and work-counter tests); a fresh set otherwise. */
  readonly counters?: DcpWorkCounters;
  /**
   * Run full-log recomputations (the `/dcp stats` ledger, DCP.md §19 D6) as `dcpLedger` tasks on this runner for logs
   * of at least `minEvents` events. Without it they run on the host's thread. Validated when the plugin is created.
   */
  readonly fullLogTasks?: FullLogTasksOptions;
  /**
   * The `dcp` namespace already resolved by the caller (the CLI resolves it once per command), used instead of
   * resolving `ctx.config('dcp')` again; its warnings are logged as if resolved here.
   */
  readonly config?: ResolvedDcpConfig;
}

/** The DCP plugin; `runtime` is set once it was applied with a valid, enabled configuration. */
export interface DcpPlugin extends Plugin {
  readonly runtime: DcpRuntime | undefined;
}

/** The configuration, or `undefined` after logging why DCP is not mounted. */
function configOf(context: PluginContext, given: ResolvedDcpConfig | undefined): DcpConfig | undefined {
  let resolved = given;
  try {
    resolved ??= resolveDcpConfig(context.config('dcp'));
  } catch (error) {
    if (!(error instanceof DcpConfigError)) throw error;
    context.logger.error(error.message, error);
    return undefined;
  }
  for (const warning of resolved.warnings) context.logger.warn(warning);
  return resolved.config;
}

/**
 * Creates the DCP plugin.
 *
 * @throws DcpConfigError `DCP_CONFIG_INVALID` when `options.fullLogTasks` is invalid (a host wiring error, not user config).
 */
export function dcpPlugin(options: DcpPluginOptions = {}): DcpPlugin {
  const fullLogTasks: FullLogTasks | undefined = options.fullLogTasks === undefined ? undefined : resolveFullLogTasks(options.fullLogTasks);
  let runtime: DcpRuntime | undefined;
  return {
    name: 'dcp',
    get runtime() {
      return runtime;
    },
    apply(context: PluginContext): void {
      const config = configOf(context, options.config);
      if (config === undefined || !config.enabled) return;
      // The storage getter is read at each sync, so storage wired after this point (`storage/available`) is used.
      const mounted = new DcpRuntime(
        config,
        context.logger,
        options.counters ?? new DcpWorkCounters(),
        () => context.storage,
        fullLogTasks,
      );
      runtime = mounted;
      context.dispose(() =>
        mounted.domainStats
          .close()
          .catch((error: unknown) => context.logger.warn(`DCP could not close its stats domain: ${errorMessage(error)}`, error)),
      );
      context.dispose(() => mounted.dispose());
      const toolRegistered = config.compress.enabled;
      if (toolRegistered) context.registerTool(createCompressTool(mounted));
      context.registerSystemSection(
        guidanceSection({
          compressEnabled: config.compress.enabled,
          purgeErrorsEnabled: config.strategies.purgeErrors.enabled,
          manualDefault: config.manualMode.default,
        }),
      );
      context.on('agent/pre-step', createDcpPreStepListener(mounted, toolRegistered));
      for (const command of createDcpCommands(mounted)) context.registerCommand(command);
    },
  };
}
