/**
 * The composition's configuration file: `sessionctx.config.json` in the working directory (optional), or the file
 * `--config F` names (required). Its keys are checked against the schema's keys here; their values are validated by
 * the schema with the file named as their source.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isRecord } from '../../../protocol/events.js';
import { SessionctxConfigError } from './config-error.js';
import { expandHome } from './home-path.js';

/** The name of the configuration file looked up in the working directory. */
export const CONFIG_FILE_NAME = 'sessionctx.config.json';

/** A configuration file that was read. */
export interface ConfigFile {
  /** Its absolute path. */
  readonly path: string;
  /** Its keys, every one of them known. */
  readonly values: Readonly<Record<string, unknown>>;
}

/**
 * Reads the configuration file.
 * @param where - the working directory, the environment (for `~`), `--config F` if given, and the keys the file may hold.
 * @returns the file, or `undefined` when no `--config` was given and the working directory has none.
 * @throws SessionctxConfigError `SESSIONCTX_INVALID_CONFIG` when the file cannot be read, is not JSON, is not a JSON
 * object or has unknown keys.
 */
export async function readConfigFile(where: {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly configFile?: string | undefined;
  readonly knownKeys: readonly string[];
}): Promise<ConfigFile | undefined> {
  const explicit = where.configFile !== undefined;
  const path =
    where.configFile !== undefined ? resolve(where.cwd, expandHome(where.configFile, where.env)) : join(where.cwd, CONFIG_FILE_NAME);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (!explicit && (error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw new SessionctxConfigError(
      `cannot read config file ${JSON.stringify(path)}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch (error) {
    throw new SessionctxConfigError(
      `config file ${JSON.stringify(path)} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (!isRecord(values)) throw new SessionctxConfigError(`config file ${JSON.stringify(path)} must hold a JSON object`);
  const known = new Set(where.knownKeys);
  const unknown = Object.keys(values).filter((key) => !known.has(key));
  if (unknown.length > 0) {
    throw new SessionctxConfigError(
      `config file ${JSON.stringify(path)} has unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => JSON.stringify(key)).join(', ')}; known: ${where.knownKeys.join(', ')}`,
    );
  }
  return { path, values };
}
