import { BooleanQuery, MatchQuery, Occur, type FullTextQuery } from '@lancedb/lancedb';
import { words } from '../../kernel/index.js';

/**
 * A full-text query that counts a word as often as the query holds it, as BM25 (and chunkd eval's
 * bm25) does, or undefined when no word repeats: LanceDB's match query counts each word once. The
 * words are grouped by how often they occur, each group a match query boosted by that count, the
 * groups' scores summed.
 */
export function countedQuery(text: string, column: string): FullTextQuery | undefined {
  const counts = new Map<string, number>();
  for (const w of words(text)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const byCount = new Map<number, string[]>();
  for (const [w, n] of counts) byCount.set(n, [...(byCount.get(n) ?? []), w]);
  if (![...byCount.keys()].some((n) => n > 1)) return undefined;
  return new BooleanQuery([...byCount].map(([n, group]): [Occur, FullTextQuery] => [Occur.Should, new MatchQuery(group.join(' '), column, { boost: n })]));
}
