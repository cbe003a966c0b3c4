/**
 * The text a picked path becomes (issue 28, docs/WEB.md "The @ source"): the natural `@path`, the model reads it as
 * a path (no hidden form). A path with whitespace is `@"path with spaces"`; a quote the person opened stays. A
 * directory ends in `/` and leaves its quote open, so the picker can go on below it.
 */
import type { WebFileCandidate } from '../../../src/protocol/web/web-api.js';

// Control characters and quotes cannot be carried by either form (the server leaves such names out too).
const UNCARRIABLE = /[\u0000-\u001f\u007f-\u009f"]/u;

/**
 * The reference text of `file`, or `undefined` for a path neither form can carry.
 *
 * @param file the picked candidate
 * @param quoted the person typed `@"`
 */
export function fileMentionText(file: WebFileCandidate, quoted: boolean): string | undefined {
  const path = file.kind === 'directory' ? `${file.path}/` : file.path;
  if (UNCARRIABLE.test(path)) return undefined;
  if (!quoted && !/\s/u.test(path)) return `@${path}`;
  return file.kind === 'directory' ? `@"${path}` : `@"${path}"`;
}
