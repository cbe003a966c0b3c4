/**
 * The typed refusal of the session catalog (docs/ARCHITECTURE.md "Faces and the catalog"): a request every face can
 * make and the catalog turns away — a malformed URI or cursor, a prefix of several sessions, a session no listing
 * has, a read that needs a session root the engine does not have. Each face maps the kind to its own terms (MCP:
 * JSON-RPC -32602 / -32002; the Web: an HTTP status; the CLI: its exit codes).
 */

/** Why the catalog refused. */
export type CatalogErrorKind =
  /** The arguments are malformed (a URI, a cursor, an ambiguous id prefix). */
  | 'invalid-argument'
  /** No listed session has this name. */
  | 'not-found'
  /** The engine has no session root, so there is no stored log to read. */
  | 'no-root';

/** The stable code of each kind (a missing session keeps the store's code, the one every face already reports). */
const CODE_OF = {
  'invalid-argument': 'CATALOG_INVALID_ARGUMENT',
  'not-found': 'SESSION_QUERY_SESSION_NOT_FOUND',
  'no-root': 'CATALOG_NO_SESSION_ROOT',
} as const;

/** A stable code of {@link CatalogError}. */
export type CatalogErrorCode = (typeof CODE_OF)[CatalogErrorKind];

/** A request the catalog refuses. */
export class CatalogError extends Error {
  readonly kind: CatalogErrorKind;
  readonly code: CatalogErrorCode;

  constructor(kind: CatalogErrorKind, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'CatalogError';
    this.kind = kind;
    this.code = CODE_OF[kind];
  }
}

/**
 * An id prefix that names several listed sessions: an `invalid-argument` refusal (as every face maps it) that
 * keeps the matches, so a face with its own code for it (the CLI's `CLI_SESSION_ID_AMBIGUOUS`) can tell it apart.
 */
export class AmbiguousSessionPrefixError extends CatalogError {
  /** The listed ids the prefix matches, in listing order. */
  readonly matches: readonly string[];

  constructor(message: string, matches: readonly string[]) {
    super('invalid-argument', message);
    this.name = 'AmbiguousSessionPrefixError';
    this.matches = matches;
  }
}
