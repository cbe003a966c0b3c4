/**
 * The fenced code blocks of a Markdown text, for the tests that run or type-check the README's examples.
 */

/** One fenced block. */
export interface MarkdownBlock {
  /** The info string's first word (`sh`, `ts`, `json`), empty when none. */
  readonly language: string;
  readonly body: string;
  /** The line the opening fence is on (1-based). */
  readonly line: number;
  /** Preceded by `<!-- readme-test: not run (…) -->`. */
  readonly skipped: boolean;
}

/**
 * The fenced blocks of a Markdown text, with the line each starts on.
 * @param markdown - the text.
 */
export function fencedBlocks(markdown: string): MarkdownBlock[] {
  const lines = markdown.split('\n');
  const blocks: MarkdownBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^( *)```(\w*)\s*$/.exec(lines[index] as string);
    if (open === null) continue;
    const indent = (open[1] as string).length;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !/^ *```\s*$/.test(lines[index] as string); index++)
      body.push((lines[index] as string).slice(indent));
    const before =
      lines
        .slice(0, start)
        .reverse()
        .find((line) => line.trim() !== '') ?? '';
    blocks.push({
      language: open[2] as string,
      body: body.join('\n'),
      line: start + 1,
      skipped: /^<!-- readme-test: not run/.test(before.trim()),
    });
  }
  return blocks;
}
