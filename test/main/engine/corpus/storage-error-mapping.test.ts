/**
 * The query layer's classification of storage failures (SESSION-LOG.md §10.1, issue 11 items 4 and 7): a missing
 * session has one code everywhere, damaged bytes (framing, scanner, header record, identity) are corruption like
 * validation failures, and I/O, layout and unsupported formats are persistence failures; the cause is always kept,
 * and errors rebuilt after crossing a thread boundary classify exactly alike.
 */
import { describe, expect, it } from 'vitest';
import { SessionFormatUnsupportedError, SessionLogError, SessionPersistenceCorruptionError } from '../../../../src/protocol/errors.js';
import type { SessionLogErrorCode } from '../../../../src/protocol/errors.js';
import { rebuildError, serializeError } from '../../../../src/protocol/wire/wire-error.js';
import {
  rebuildError as rebuildTitleError,
  serializeError as serializeTitleError,
} from '../../../../src/workers/titles/serialized-error.js';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../../../../src/main/engine/corpus/session-query.js';
import { inspectionFailure } from '../../../../src/main/engine/corpus/storage-error-mapping.js';
import { sessionNotFoundError } from '../../../../src/protocol/layout-errors.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionHeader } from '../../../../src/protocol/events.js';

/** Each case: the storage error, then the expected query code and message prefix (the rest is the error's message). */
const CASES: ReadonlyArray<{ name: string; error: () => Error; code: string; prefix: string }> = [
  {
    name: 'a zstd frame that fails validation',
    error: () => new SessionLogError('SESSION_LOG_CORRUPT', 'corrupt Zstandard session log: frame at byte 75 failed validation'),
    code: 'SESSION_QUERY_CORRUPT_SESSION',
    prefix: 'stored session "s" is corrupt: ',
  },
  {
    name: 'an unparsable committed line',
    error: () => new SessionLogError('SESSION_LOG_CORRUPT', 'corrupt session log: unparsable committed event at line 5'),
    code: 'SESSION_QUERY_CORRUPT_SESSION',
    prefix: 'stored session "s" is corrupt: ',
  },
  {
    name: 'a first line that is not a header',
    error: () => new SessionLogError('SESSION_LOG_INVALID_HEADER', 'corrupt session log: first line is not a session header'),
    code: 'SESSION_QUERY_CORRUPT_SESSION',
    prefix: 'stored session "s" is corrupt: ',
  },
  {
    name: 'a validation failure',
    error: () => new SessionPersistenceCorruptionError('s', new Error('bad event')),
    code: 'SESSION_QUERY_CORRUPT_SESSION',
    prefix: 'stored session "s" is corrupt: ',
  },
  {
    name: 'a FIFO in place of the log',
    error: () => new SessionLogError('SESSION_STORE_NOT_A_FILE', 'session store: "/r/p/s/session.jsonl" is a FIFO, not a regular file'),
    code: 'SESSION_QUERY_PERSISTENCE_FAILED',
    prefix: 'failed to inspect session "s": ',
  },
  {
    name: 'a refused open',
    error: () =>
      new SessionLogError('SESSION_STORE_ACCESS_DENIED', 'session store: cannot open "/x": EACCES: permission denied, open \'/x\'', {
        cause: Object.assign(new Error('EACCES'), { code: 'EACCES' }),
      }),
    code: 'SESSION_QUERY_PERSISTENCE_FAILED',
    prefix: 'failed to inspect session "s": ',
  },
  {
    name: 'another I/O failure',
    error: () => new SessionLogError('SESSION_STORE_IO_FAILED', 'session store: cannot read "/x": EIO: i/o error, read'),
    code: 'SESSION_QUERY_PERSISTENCE_FAILED',
    prefix: 'failed to inspect session "s": ',
  },
  {
    name: 'a duplicate id (layout)',
    error: () => new SessionLogError('SESSION_STORE_LAYOUT', 'duplicate JSONL session id "s" appears in multiple project directories'),
    code: 'SESSION_QUERY_PERSISTENCE_FAILED',
    prefix: 'failed to inspect session "s": ',
  },
  {
    name: 'a newer format',
    error: () => new SessionFormatUnsupportedError('session "s" uses log format v1, but this harness reads only v0'),
    code: 'SESSION_QUERY_PERSISTENCE_FAILED',
    prefix: 'failed to inspect session "s": ',
  },
  {
    name: 'a plain error with a foreign code',
    error: () => Object.assign(new Error('disk on fire'), { code: 'SESSION_LOG_CORRUPT_ISH' }),
    code: 'SESSION_QUERY_PERSISTENCE_FAILED',
    prefix: 'failed to inspect session "s": ',
  },
];

describe('inspectionFailure', () => {
  it.each(CASES)(
    '$name, reported as dsh reports it (damagedLogErrors: dsh): only a validation failure is corruption',
    ({ name, error }) => {
      const original = error();
      const mapped = inspectionFailure('s', original, 'dsh');
      // dsh's query engine: SessionPersistenceCorruptionError → corrupt; everything else a backend throws → a failed inspection.
      const [code, prefix] =
        name === 'a validation failure'
          ? ['SESSION_QUERY_CORRUPT_SESSION', 'stored session "s" is corrupt: ']
          : ['SESSION_QUERY_PERSISTENCE_FAILED', 'failed to inspect session "s": '];
      expect([mapped.code, mapped.message]).toEqual([code, `${prefix}${original.message}`]);
      expect(mapped.cause).toBe(original);
    },
  );

  it.each(CASES)('$name → $code, message and cause kept', ({ error, code, prefix }) => {
    const original = error();
    const mapped = inspectionFailure('s', original);
    expect([mapped.name, mapped.code, mapped.message]).toEqual(['SessionQueryError', code, `${prefix}${original.message}`]);
    expect(mapped.cause).toBe(original);
  });

  it.each(CASES)(
    '$name classifies alike after a thread boundary (the wire form and the title checkpoint form of the one codec)',
    ({ error, code }) => {
      expect(inspectionFailure('s', rebuildError(serializeError(error()))).code).toBe(code);
      expect(inspectionFailure('s', rebuildTitleError(serializeTitleError(error()))).code).toBe(code);
    },
  );

  it("the store's not-found error becomes the query layer's own: one code, one text, the store error as cause", () => {
    const storeError = sessionNotFoundError('s');
    expect([storeError.name, storeError.code, storeError.message]).toEqual([
      'Error',
      'SESSION_QUERY_SESSION_NOT_FOUND',
      'session "s" not found',
    ]);
    for (const error of [
      storeError,
      rebuildError(serializeError(storeError)) as Error,
      rebuildTitleError(serializeTitleError(storeError)),
    ]) {
      expect(error).toBeInstanceOf(SessionLogError);
      const mapped = inspectionFailure('s', error);
      expect([mapped.name, mapped.code, mapped.message]).toEqual([
        'SessionQueryError',
        'SESSION_QUERY_SESSION_NOT_FOUND',
        'session "s" not found',
      ]);
      expect(mapped.cause).toBe(error);
    }
  });

  it('every new store code survives both codecs as a SessionLogError', () => {
    const codes: SessionLogErrorCode[] = [
      'SESSION_STORE_NOT_A_FILE',
      'SESSION_STORE_ACCESS_DENIED',
      'SESSION_STORE_IO_FAILED',
      'SESSION_QUERY_SESSION_NOT_FOUND',
    ];
    for (const code of codes) {
      const original = new SessionLogError(code, `text of ${code}`);
      for (const rebuilt of [rebuildError(serializeError(original)) as Error, rebuildTitleError(serializeTitleError(original))]) {
        expect(rebuilt).toBeInstanceOf(SessionLogError);
        expect([rebuilt.name, (rebuilt as SessionLogError).code, rebuilt.message]).toEqual(['Error', code, `text of ${code}`]);
      }
    }
  });
});

describe('readSurface when the artifact vanishes between the listing and the inspection', () => {
  it('rejects with SESSION_QUERY_SESSION_NOT_FOUND, not a persistence failure', async () => {
    const header = { version: 0, id: asSessionId('gone'), createdAt: 1 } as SessionHeader;
    const storage = {
      list: () => Promise.resolve([header]),
      inspect: () => Promise.reject(sessionNotFoundError('gone')),
    };
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const error = await query.readSurface(asSessionId('gone')).then(
      () => undefined,
      (reason: unknown) => reason as Error & { code?: unknown },
    );
    expect([error?.name, error?.code, error?.message]).toEqual([
      'SessionQueryError',
      'SESSION_QUERY_SESSION_NOT_FOUND',
      'session "gone" not found',
    ]);
  });
});
