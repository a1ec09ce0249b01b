import type { Span } from '../../kernel/index.js';
import type { TokenVectors } from '../embeddings/embedder.js';

/** Float32 values carry about 7 significant digits; more only lengthens the JSON. */
const round = (x: number) => Math.round(x * 1e8) / 1e8;

/**
 * The late embedding of each span: the mean of the vectors of the tokens whose text overlaps it
 * (token k covers ends[k-1]..ends[k]; a token straddling a cut counts for both chunks). Tokens the
 * model has no vector for are left out; a span with none gets the zero vector. Spans are in order
 * (as chunkers return them), so one pass over the tokens serves all of them.
 */
export function poolSpans(spans: readonly Pick<Span, 'start' | 'end'>[], tokens: TokenVectors, dimension: number): number[][] {
  const { ends, vectors } = tokens;
  const dim = vectors.find((v) => v)?.length ?? dimension;
  let first = 0; // first token that can overlap the current span
  return spans.map(({ start, end }) => {
    while (first < ends.length && ends[first]! <= start) first++;
    const sum = new Float64Array(dim);
    let n = 0;
    for (let k = first; k < ends.length && (k === 0 ? 0 : ends[k - 1]!) < end; k++) {
      const v = vectors[k];
      if (!v) continue;
      for (let d = 0; d < dim; d++) sum[d]! += v[d]!;
      n++;
    }
    return Array.from(sum, (x) => round(n ? x / n : 0));
  });
}
