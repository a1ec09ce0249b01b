/**
 * Lowercase word tokens: runs of letters and digits (Unicode), as Python's
 * `re.findall(r'[^\W_]+', text.lower())`. The words of chunkd eval's BM25 (which LanceDB's full-text
 * index is made to match: plugins/lancedb/upkeep.ts FTS_OPTIONS) and of the hashed direction of a
 * text a model knows no word of.
 */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** BM25's parameters, chunkd's everywhere it ranks by BM25: `chunkd eval`'s bm25 and the pgvector handshake's text search. */
export const BM25 = { k1: 1.2, b: 0.75 } as const;
