import { chunkVector, type Span, type TokenVectors } from '../../kernel/index.js';

const isSpace = (code: number) =>
  code === 32 ||
  (code >= 9 && code <= 13) ||
  code === 0x85 ||
  code === 0xa0 ||
  code === 0x3000 ||
  (code >= 0x2000 && code <= 0x200a) ||
  code === 0x2028 ||
  code === 0x2029;

/**
 * Where each token's own text begins: after the previous token's end and any spaces (byte-level
 * tokens such as " the" carry their leading space; a chunk ending in that space does not get them).
 */
function tokenStarts(text: string, ends: Uint32Array): Uint32Array {
  const starts = new Uint32Array(ends.length);
  for (let k = 0; k < ends.length; k++) {
    let s = k === 0 ? 0 : ends[k - 1]!;
    while (s < ends[k]! && isSpace(text.charCodeAt(s))) s++;
    starts[k] = s;
  }
  return starts;
}

/**
 * The late embedding of each span: the mean of the vectors of the tokens whose text overlaps it
 * (a token straddling a cut counts for both chunks). Tokens the model has no vector for are left
 * out; a span with none gets its words' hashed direction (kernel/embeddings/vectors.ts
 * chunkVector), never the zero vector. Spans are in order (as chunkers return them), so one
 * pass over the tokens serves all of them.
 */
export function poolSpans(text: string, spans: readonly Pick<Span, 'start' | 'end'>[], tokens: TokenVectors, dimension: number): number[][] {
  const { ends, vectors } = tokens;
  const starts = tokenStarts(text, ends);
  // A token with no text of its own (a special or unknown token aligned by position) counts as one character wide.
  const endOf = (k: number) => Math.max(ends[k]!, starts[k]! + 1);
  const dim = vectors.find((v) => v)?.length ?? dimension;
  let first = 0; // first token that can overlap the current span
  return spans.map(({ start, end }) => {
    while (first < ends.length && endOf(first) <= start) first++;
    const sum = new Float64Array(dim);
    let n = 0;
    for (let k = first; k < ends.length && starts[k]! < end; k++) {
      const v = vectors[k];
      if (!v) continue;
      for (let d = 0; d < dim; d++) sum[d]! += v[d]!;
      n++;
    }
    // A span of no known token gets its words' hashed direction, as the embeddings refinery gives such a text.
    return chunkVector(sum, text.slice(start, end), dim, 1 / Math.max(n, 1));
  });
}
