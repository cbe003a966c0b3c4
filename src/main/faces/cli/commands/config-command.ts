/**
 * `sessionctx config`: the effective configuration and where each value came from (flag, `SESSIONCTX_*`
 * environment, config file, default), one `key = value  (source)` line each, or with `--json`
 * `{config, sources, file}`.
 */
import { CONFIG_FILE_NAME, describeConfig } from '../../../engine/config/composition-config.js';
import type { CliCommandDefinition } from '../cli-command.js';
import { writeJson, writeLines } from '../cli-io.js';

/** `sessionctx config`. */
export const configCommand: CliCommandDefinition<[]> = {
  name: ['config'],
  usage: {
    description: 'print the effective configuration and where each value came from (flag, SESSIONCTX_* environment, config file, default)',
    examples: ['sessionctx config', 'SESSIONCTX_ROOT=~/sessions sessionctx config --json'],
    workers: false,
  },
  options: [],
  run({ io, json, resolved }) {
    if (json) writeJson(io, { config: resolved.config, sources: resolved.sources, file: resolved.file ?? null });
    else
      writeLines(io, [
        resolved.file !== undefined ? `config file: ${resolved.file}` : `config file: none (looked for ${CONFIG_FILE_NAME} in ${io.cwd})`,
        ...describeConfig(resolved),
      ]);
    return Promise.resolve();
  },
};
