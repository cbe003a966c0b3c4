/**
 * The plugins a scripted scenario runs with (`sessionctx script run`): DCP, mounted with the scenario's resolved
 * `dcp` configuration and its full-log folds on the engine's task runner. Kept in the scenario room so the CLI
 * face never reaches into DCP itself.
 */
import type { ResolvedDcpConfig } from '../../../protocol/dcp/config.js';
import { dcpPlugin } from '../../engine/dcp/dcp-plugin.js';
import type { Plugin } from '../../host-api/host-api.js';
import type { TaskRunner } from '../../engine/pool/task-runner.js';

/** DCP for a scenario run: the configuration resolved once by the caller, long-log folds on `runner`. */
export function scenarioDcpPlugins(config: ResolvedDcpConfig, runner: TaskRunner): readonly Plugin[] {
  return [dcpPlugin({ fullLogTasks: { runner }, config })];
}
