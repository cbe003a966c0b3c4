/** Stable codes of storage failures. */
export type PluginStorageErrorCode =
  /** A domain name, version or key of the wrong form. */
  | 'HOST_STORAGE_ARGUMENT'
  /** A value that is not lossless JSON. */
  | 'HOST_STORAGE_VALUE'
  /** A call on a closed domain handle. */
  | 'HOST_STORAGE_CLOSED'
  /** The backing store could not be read or written; `cause` holds the underlying error. */
  | 'HOST_STORAGE_IO';

/** A failed storage operation (a rejected promise, never a throw into the caller's stack). */
export class PluginStorageError extends Error {
  /** The stable classification of this failure. */
  readonly code: PluginStorageErrorCode;

  constructor(code: PluginStorageErrorCode, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.code = code;
    Object.defineProperty(this, 'name', { value: 'PluginStorageError', enumerable: false, configurable: true, writable: true });
  }
}

const DOMAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Rejects a domain name or version of the wrong form (`HOST_STORAGE_ARGUMENT`). */
export function checkDomainArguments(domain: unknown, options: unknown): asserts domain is string {
  if (typeof domain !== 'string' || !DOMAIN_NAME.test(domain)) {
    throw new PluginStorageError(
      'HOST_STORAGE_ARGUMENT',
      `storage domain name ${JSON.stringify(domain)} must match [A-Za-z0-9][A-Za-z0-9_.-]*`,
    );
  }
  const version: unknown =
    typeof options === 'object' && options !== null ? (options as { readonly version?: unknown }).version : undefined;
  if (!Number.isSafeInteger(version) || (version as number) < 0) {
    throw new PluginStorageError('HOST_STORAGE_ARGUMENT', `storage domain "${domain}" needs a non-negative integer version`);
  }
}
