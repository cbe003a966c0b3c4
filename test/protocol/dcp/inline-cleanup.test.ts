import { describe, expect, it } from 'vitest';
import {
  ARGUMENTS_UNPARSEABLE_WARNING,
  AUTHOR_NOT_FOUND_WARNING,
  NOTHING_TO_CLEAN_WARNING,
  cleanCompressArguments,
  cleanedAuthorMessage,
} from '../../../src/protocol/dcp/inline-cleanup.js';
import type { Message } from '../../../src/protocol/events.js';

const args = JSON.stringify({
  topic: 'work',
  content: [
    { startRef: 'm0001', endRef: 'm0002', summary: 'first summary' },
    { startRef: 'm0002', endRef: 'm0004', summary: 'second summary' },
  ],
});

describe('§18 item 21: cleanup mapping by input index', () => {
  it('entry 0 failed and entry 1 committed as b4 → entry 0 keeps its summary, entry 1 becomes [stored in b4]', () => {
    const cleaned = cleanCompressArguments(args, new Map([[1, 'b4']]));
    expect(cleaned).toEqual({
      ok: true,
      arguments:
        '{"topic":"work","content":[{"startRef":"m0001","endRef":"m0002","summary":"first summary"},{"startRef":"m0002","endRef":"m0004","summary":"[stored in b4]"}]}',
    });
  });

  it('warnings: unparseable arguments, nothing to clean', () => {
    expect(cleanCompressArguments('{not json', new Map([[0, 'b1']]))).toEqual({
      ok: false,
      warning: 'compress arguments could not be parsed for inline cleanup',
    });
    expect(cleanCompressArguments(JSON.stringify({ topic: 't', content: [{ summary: 3 }] }), new Map([[0, 'b1']]))).toEqual({
      ok: false,
      warning: 'no inline summary argument found to clean',
    });
    expect(cleanCompressArguments(args, new Map([[5, 'b1']]))).toEqual({ ok: false, warning: NOTHING_TO_CLEAN_WARNING });
    expect(ARGUMENTS_UNPARSEABLE_WARNING).toBe('compress arguments could not be parsed for inline cleanup');
    expect(AUTHOR_NOT_FOUND_WARNING).toBe('author assistant message not found for inline cleanup');
  });

  it('the cleaned author keeps id, role, source and every other block; only that call’s arguments change', () => {
    const author: Message = {
      id: 'a1',
      role: 'assistant',
      source: { kind: 'model' },
      content: [
        { type: 'text', text: 'compressing' },
        { type: 'tool-call', id: 'c0', name: 'compress', arguments: args },
        { type: 'tool-call', id: 'c9', name: 'compress', arguments: args },
      ],
    };
    const cleaned = cleanedAuthorMessage(author, 'c9', '{"x":1}')!;
    expect(cleaned).toEqual({
      ...author,
      content: [author.content[0], author.content[1], { type: 'tool-call', id: 'c9', name: 'compress', arguments: '{"x":1}' }],
    });
    expect(Object.keys(cleaned)).toEqual(['id', 'role', 'source', 'content']);
    expect((author.content[2] as { arguments: string }).arguments).toBe(args);
    expect(cleanedAuthorMessage(author, 'nope', '{}')).toBeUndefined();
  });
});
