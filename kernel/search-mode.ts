import type { Capabilities } from './handshake.js';

/**
 * How a collection is searched: `text` by the store's own full-text index (BM25 or the like),
 * `vector` by the query's embedding, `hybrid` by both lists fused with the collection's model's rule
 * (kernel/fusion.ts fusionFor). A handshake serves the modes its capabilities give (hybrid needs
 * both); chunkd fuses, once for every handshake (service/stores/stores.ts).
 */
export const SEARCH_MODES = ['vector', 'text', 'hybrid'] as const;

export type SearchMode = (typeof SEARCH_MODES)[number];

export const isSearchMode = (x: unknown): x is SearchMode => typeof x === 'string' && (SEARCH_MODES as readonly string[]).includes(x);

/** The modes a handshake of these capabilities serves, in SEARCH_MODES order. */
export function modesOf(caps: Capabilities): SearchMode[] {
  return SEARCH_MODES.filter((m) => (m === 'vector' ? caps.vector : m === 'text' ? caps.text : caps.vector && caps.text));
}

/**
 * The mode measured best for a model's collections, by the model its vectors came from.
 * Measured by leaving one corpus out over the five corpora of Chroma's chunking evaluation
 * (bench/quality/modes.ts, bench/results.md "Search modes held out"): with the built-in model, text
 * (BM25) beat vector in 40 of 40 corpus × preset cells (held-out mean recall@5 91.9 against 68.7),
 * and no hybrid weight below 1 both held out and gained (92.0 at best, −2.0 on one cell), so its
 * hybrid is BM25's order (FUSION_BY_MODEL) and its default is the text mode, which needs no query
 * embedding.
 */
export const MODE_BY_MODEL: Readonly<Record<string, SearchMode>> = {
  'chunkd/glove-sif-100d': 'text',
};

/**
 * Any other model: `hybrid` with DEFAULT_FUSION (equal-weight reciprocal rank). Not measured here
 * (no other model can be fetched where the measurement ran): a model about as good as BM25 with
 * other errors is where fusion beats both. `chunkd eval --retriever store:NAME:MODE` measures it
 * on a user's own questions.
 */
export const DEFAULT_MODE: SearchMode = 'hybrid';

/**
 * The mode a search of a collection runs when none is asked: its model's (MODE_BY_MODEL, else
 * DEFAULT_MODE) if the store serves it; else, of the modes it serves, hybrid, then text, then
 * vector. A collection with no recorded model has no vectors to search: text.
 */
export function defaultModeFor(model: string | null | undefined, modes: readonly SearchMode[]): SearchMode | undefined {
  const usable = model ? modes : modes.filter((m) => m === 'text');
  const preferred = (model && MODE_BY_MODEL[model]) || DEFAULT_MODE;
  if (usable.includes(preferred)) return preferred;
  return (['hybrid', 'text', 'vector'] as const).find((m) => usable.includes(m));
}
