/**
 * A root the demo refuses to write into (`sessionctx demo --root DIR`). The demo writes a whole corpus of its own,
 * so it only writes into a directory that is missing or empty: writing into an existing root would mix the demo's
 * sessions into someone's data, and into a root of the other encoding would leave a mixed root the store refuses.
 */

/** Stable codes of a refused demo root. */
export type DemoRootErrorCode =
  /** The root has at least one entry (sessions, a title index, anything). */
  | 'DEMO_ROOT_NOT_EMPTY'
  /** The root exists and is not a directory. */
  | 'DEMO_ROOT_NOT_DIRECTORY';

/** A refused demo root; nothing was written. */
export class DemoRootError extends Error {
  /** The stable classification of this refusal. */
  readonly code: DemoRootErrorCode;
  /** The root as given. */
  readonly root: string;

  constructor(code: DemoRootErrorCode, root: string, message: string) {
    super(message);
    this.code = code;
    this.root = root;
    this.name = 'DemoRootError';
  }
}
