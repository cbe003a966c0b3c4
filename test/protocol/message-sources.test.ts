/**
 * The typed message sources (issue 26 item 2): a prepared snapshot's source is `SessionReferenceSource` in the types
 * (a reader reaches `source.references[i].omittedBytes` without a cast), and `createUserMessage` keeps the source type
 * it was given.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { PreparedReferences, ReferenceMetadata, SessionReferenceSource } from '../../src/main/index.js';
import { createUserMessage } from '../../src/protocol/user-message.js';

describe('typed message sources', () => {
  it('types a prepared context by its session-reference source', () => {
    expectTypeOf<NonNullable<PreparedReferences['additionalContext']>['source']>().toExtend<SessionReferenceSource>();
    expectTypeOf<SessionReferenceSource['references'][number]>().toEqualTypeOf<ReferenceMetadata>();
    expectTypeOf<SessionReferenceSource['kind']>().toEqualTypeOf<'session-reference'>();
  });

  it('keeps the source type a message is created with', () => {
    const source: SessionReferenceSource = { kind: 'session-reference', form: 'recall', version: 1, references: [] };
    const message = createUserMessage({ source, content: [{ type: 'text', text: 'x' }] });
    expectTypeOf(message.source).toExtend<SessionReferenceSource>();
    expect(message.source).toEqual(source);
    expect(message.source).not.toBe(source);
  });
});
