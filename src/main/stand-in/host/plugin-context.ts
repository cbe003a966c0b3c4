/**
 * The one context object a plugin receives (HOST.md §1): hooks, tools, commands, system sections, its frozen
 * configuration, a logger that never reaches the log or the model, the session registry and query, and
 * cleanup registration.
 */
import { deepFreeze } from '../../../protocol/deep-freeze.js';
import { errorMessage } from '../../../protocol/errors.js';
import type { SessionQuery } from '../../engine/corpus/session-query.js';
import { silentLogger } from '../../host-kit/silent-logger.js';
import type { HostAgent, HostHookMap, PluginLogger, SessionDirectory, PluginContext } from '../../host-api/host-api.js';

/** What the host hands to every plugin context besides the agent. */
export interface PluginHostOptions {
  /** Configuration by namespace; each value is deep-frozen (a clone) before a plugin sees it. */
  readonly config?: Readonly<Record<string, unknown>>;
  readonly logger?: PluginLogger;
  readonly sessions?: SessionDirectory;
  readonly sessionQuery?: SessionQuery;
}

/** `listener` with its failures (a throw or a rejection) reported to `logger` instead of its caller. */
function loggedStorageListener(listener: HostHookMap['storage/available'], logger: PluginLogger): HostHookMap['storage/available'] {
  const report = (error: unknown): void => logger.error(`storage/available listener failed: ${errorMessage(error)}`, error);
  return (storage) => {
    try {
      return Promise.resolve(listener(storage)).catch(report);
    } catch (error) {
      report(error);
      return undefined;
    }
  };
}

/** Builds the context of one plugin bound to `agent`. */
export function createPluginContext(agent: HostAgent, options: PluginHostOptions = {}): PluginContext {
  const config = deepFreeze(structuredClone(options.config ?? {})) as Readonly<Record<string, unknown>>;
  const logger = options.logger ?? silentLogger;
  return {
    on: (name, listener, listenOptions) =>
      name === 'storage/available'
        ? agent.on('storage/available', loggedStorageListener(listener as HostHookMap['storage/available'], logger), listenOptions)
        : agent.on(name, listener, listenOptions),
    registerTool: (definition) => agent.registerTool(definition),
    registerCommand: (definition) => agent.registerCommand(definition),
    registerSystemSection: (section) => agent.registerSystemSection(section),
    config: <T>(namespace: string) => (Object.hasOwn(config, namespace) ? (config[namespace] as T) : undefined),
    logger,
    sessions: options.sessions,
    sessionQuery: options.sessionQuery,
    get storage() {
      return agent.storage;
    },
    dispose: (fn) => agent.addDisposer(fn),
  };
}
