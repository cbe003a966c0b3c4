import { describe, expect, it } from 'vitest';
import { compressToolDescriptor } from '../../../src/protocol/dcp/compress-schema.js';

describe('§7.2 compress tool schema and description', () => {
  it('description and field descriptions verbatim; keys in table order; maxItems from configuration', () => {
    const tool = compressToolDescriptor(3);
    expect(tool.name).toBe('compress');
    expect(tool.description).toBe(
      'Compress closed, older parts of this conversation into your own summaries to keep the context small. Each content entry names a half-open range [startRef, endRef) with boundary refs shown in the conversation (mNNNN from <dcp-boundary> lines, bN from <dcp-message-id> tags) and gives a complete technical summary that replaces it. Several non-overlapping ranges may be passed in surface order; each is validated and committed on its own.',
    );
    expect(JSON.stringify(tool.parameters)).toBe(
      '{"type":"object","required":["topic","content"],"properties":{' +
        '"topic":{"type":"string","minLength":1,"maxLength":200,"description":"Short 3-5 word label for what is being compressed."},' +
        '"content":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"object","additionalProperties":false,"required":["startRef","endRef","summary"],"properties":{' +
        '"startRef":{"type":"string","minLength":1,"maxLength":32,"description":"Boundary ref where the range starts (inclusive), e.g. m0001 or b2."},' +
        '"endRef":{"type":"string","minLength":1,"maxLength":32,"description":"Boundary ref where the range ends (exclusive; that message is kept), e.g. m0007."},' +
        '"summary":{"type":"string","minLength":1,"maxLength":8000,"description":"Complete technical summary that replaces the range: plain prose with the facts, decisions, file paths, results and open items needed later. Do not start with [bN]; never write [stored in bN]."}' +
        '}}}}}',
    );
    expect(JSON.stringify(compressToolDescriptor(5).parameters)).toContain('"maxItems":5');
  });
});
