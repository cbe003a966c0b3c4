// Service configuration: SESSION-REFERENCE.md §2 (constants), §3, §14; §15 item 35.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CANDIDATE_LIMIT,
  DEFAULT_MAX_REFERENCE_BYTES,
  MAX_REFERENCES,
} from '../../../../src/main/engine/reference/reference-config.js';
import { SessionReferenceService } from '../../../../src/main/engine/reference/session-reference-service.js';
import { SessionReferenceError } from '../../../../src/protocol/reference-errors.js';
import { StubQuery } from './reference-builders.js';

function construct(config: Record<string, unknown>): () => SessionReferenceService {
  return () => new SessionReferenceService({ sessionQuery: new StubQuery({}), config });
}

function constructionError(config: Record<string, unknown>): SessionReferenceError {
  let thrown: unknown;
  try {
    construct(config)();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(SessionReferenceError);
  return thrown as SessionReferenceError;
}

describe('configuration (item 35)', () => {
  it('exports the §2 constants', () => {
    expect([MAX_REFERENCES, DEFAULT_CANDIDATE_LIMIT, DEFAULT_MAX_REFERENCE_BYTES]).toEqual([3, 50, 65536]);
  });

  it.each([
    [{ maxReferences: 0 }, 'session-reference: maxReferences must be a positive safe integer'],
    [{ maxReferences: 4 }, 'session-reference: maxReferences must not exceed 3'],
    [{ candidateLimit: 0 }, 'session-reference: candidateLimit must be a positive safe integer'],
    [{ candidateLimit: 1.5 }, 'session-reference: candidateLimit must be a positive safe integer'],
    [{ maxReferenceBytes: 0 }, 'session-reference: maxReferenceBytes must be a positive safe integer'],
    [{ maxReferenceBytes: 2 ** 53 }, 'session-reference: maxReferenceBytes must be a positive safe integer'],
    [{ maxReferences: '2' }, 'session-reference: maxReferences must be a positive safe integer'],
    [{ candidateLimit: Number.NaN }, 'session-reference: candidateLimit must be a positive safe integer'],
  ])('%j → INVALID_CONFIG', (config, text) => {
    const error = constructionError(config);
    expect({ name: error.name, code: error.code, message: error.message }).toEqual({
      name: 'SessionReferenceError',
      code: 'SESSION_REFERENCE_INVALID_CONFIG',
      message: text,
    });
  });

  it('checks the keys in order, and the ceiling of 3 only after every key is a positive safe integer', () => {
    expect(constructionError({ maxReferences: 0, candidateLimit: 0, maxReferenceBytes: 0 }).message).toBe(
      'session-reference: maxReferences must be a positive safe integer',
    );
    expect(constructionError({ candidateLimit: 0, maxReferenceBytes: 0 }).message).toBe(
      'session-reference: candidateLimit must be a positive safe integer',
    );
    expect(constructionError({ maxReferences: 4, maxReferenceBytes: -1 }).message).toBe(
      'session-reference: maxReferenceBytes must be a positive safe integer',
    );
  });

  it('defaults construct; absent and null keys take the defaults, in key order', () => {
    for (const config of [{}, { maxReferences: null, candidateLimit: null, maxReferenceBytes: null }]) {
      const resolved = construct(config)().config;
      expect(Object.keys(resolved)).toEqual(['maxReferences', 'candidateLimit', 'maxReferenceBytes']);
      expect(resolved).toEqual({ maxReferences: 3, candidateLimit: 50, maxReferenceBytes: 65536 });
    }
    expect(new SessionReferenceService({ sessionQuery: new StubQuery({}) }).config).toEqual({
      maxReferences: 3,
      candidateLimit: 50,
      maxReferenceBytes: 65536,
    });
    expect(construct({ maxReferences: 1, candidateLimit: 7, maxReferenceBytes: 100 })().config).toEqual({
      maxReferences: 1,
      candidateLimit: 7,
      maxReferenceBytes: 100,
    });
  });
});
