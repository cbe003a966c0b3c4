/**
 * The brute-force tokenizer the search benchmarks check answers with: what the `unicode61` tokenizer (diacritics
 * removed) makes of their ASCII corpora — NFD, marks stripped, lower case, letter/digit runs.
 */

/** The tokens of `text`, in order. */
export function searchTokens(text: string): string[] {
  return (
    text
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}\p{Co}]+/gu) ?? []
  );
}
