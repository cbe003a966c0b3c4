/**
 * Assembles the assistant message of one step from its streamed chunks (SESSION-LOG.md §3.5): complete blocks
 * come from `block-end`, and a block cut off by an abort is rebuilt from its deltas so that the logged message
 * carries the streamed prefix (SESSION-LOG.md §3.3, `interrupted: true`).
 */
import type { ContentBlock, ToolCallBlock } from '../../../protocol/events.js';
import type { FinishChunk, ModelChunk } from './model-client.js';

/** A block being streamed. */
interface StreamedBlock {
  readonly index: number;
  readonly blockType: string;
  text: string;
  id: string;
  name: string;
  argumentsText: string;
  complete: ContentBlock | undefined;
}

/** The block a partial stream amounts to, by block type. */
function partialBlock(block: StreamedBlock): ContentBlock {
  switch (block.blockType) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'reasoning':
      return { type: 'reasoning', text: block.text };
    case 'tool-call':
      return { type: 'tool-call', id: block.id, name: block.name, arguments: block.argumentsText };
    default:
      return { type: block.blockType };
  }
}

/** Accumulates one step's chunks. */
export class AssistantStreamAssembler {
  readonly #blocks = new Map<number, StreamedBlock>();
  #usage: unknown;
  #finish: FinishChunk | undefined;

  /** The last `usage` chunk's usage, if any. */
  get usage(): unknown {
    return this.#usage;
  }

  /** The `finish` chunk, if the stream reached it. */
  get finish(): FinishChunk | undefined {
    return this.#finish;
  }

  /** True when at least one block started. */
  get hasBlocks(): boolean {
    return this.#blocks.size > 0;
  }

  /** Folds in one chunk; chunk types it does not know are ignored (they are still logged). */
  accept(chunk: ModelChunk): void {
    switch (chunk.type) {
      case 'block-start':
        this.#block(chunk.index, chunk.blockType);
        break;
      case 'text-delta':
      case 'reasoning-delta':
        this.#block(chunk.index, chunk.type === 'text-delta' ? 'text' : 'reasoning').text += chunk.text;
        break;
      case 'tool-call-delta': {
        const block = this.#block(chunk.index, 'tool-call');
        block.id = chunk.id;
        if (chunk.name !== undefined) block.name = chunk.name;
        block.argumentsText += chunk.argumentsDelta;
        break;
      }
      case 'block-end':
        this.#block(chunk.index, chunk.block.type).complete = chunk.block;
        break;
      case 'usage':
        this.#usage = chunk.usage;
        break;
      case 'finish':
        this.#finish = chunk;
        break;
      default:
        // An open set on the wire: unknown chunk kinds carry nothing the message needs.
        break;
    }
  }

  /** The message content so far, by block index: complete blocks as ended, cut-off blocks from their deltas. */
  blocks(): ContentBlock[] {
    return [...this.#blocks.values()].sort((a, b) => a.index - b.index).map((block) => block.complete ?? partialBlock(block));
  }

  /** The tool calls among `blocks()`, in block order. */
  static toolCalls(blocks: readonly ContentBlock[]): ToolCallBlock[] {
    return blocks.filter((block): block is ToolCallBlock => block.type === 'tool-call');
  }

  #block(index: number, blockType: string): StreamedBlock {
    let block = this.#blocks.get(index);
    if (block === undefined) {
      block = { index, blockType, text: '', id: '', name: '', argumentsText: '', complete: undefined };
      this.#blocks.set(index, block);
    }
    return block;
  }
}
