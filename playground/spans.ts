/** A chunk as the API answers it (DESIGN §3). */
export interface Chunk {
  id: string;
  text: string;
  start_index: number;
  end_index: number;
  token_count: number;
  context?: string;
  embedding?: number[];
  metadata?: Record<string, unknown>;
}

/** A stretch of the input (UTF-16 offsets) covered by the same chunks and the same contexts. */
export interface Segment {
  start: number;
  end: number;
  /** Indexes of the chunks whose span holds this stretch: none is a gap, two or more an overlap. */
  chunks: number[];
  /** Indexes of the chunks whose overlap context (added by the overlap refinery) is this stretch. */
  context: number[];
}

/** Code-point offsets (the API's default unit) → UTF-16 offsets (JavaScript string indexes). */
export function utf16Offsets(text: string): (codePoint: number) => number {
  const map: number[] = [];
  let i = 0;
  for (const ch of text) {
    map.push(i);
    i += ch.length;
  }
  map.push(i);
  return (cp) => map[Math.min(Math.max(cp, 0), map.length - 1)]!;
}

/** Where a chunk's context sits in the input: right after its span (suffix) or right before it (prefix). */
function contextSpan(text: string, start: number, end: number, context: string | undefined): [number, number] | undefined {
  if (!context) return undefined;
  if (text.startsWith(context, end)) return [end, end + context.length];
  if (start - context.length >= 0 && text.startsWith(context, start - context.length)) return [start - context.length, start];
  return undefined;
}

/**
 * The input cut at every chunk and context edge, each piece naming the chunks that cover it: a
 * sweep over the edges, so a long text with many chunks stays linear (plus sorting).
 */
export function segments(text: string, chunks: Chunk[]): Segment[] {
  const at = utf16Offsets(text);
  type Edge = { pos: number; chunk: number; open: boolean; context: boolean };
  const edges: Edge[] = [];
  chunks.forEach((c, i) => {
    const s = at(c.start_index);
    const e = at(c.end_index);
    if (e > s) edges.push({ pos: s, chunk: i, open: true, context: false }, { pos: e, chunk: i, open: false, context: false });
    const ctx = contextSpan(text, s, e, c.context);
    if (ctx && ctx[1] > ctx[0]) edges.push({ pos: ctx[0], chunk: i, open: true, context: true }, { pos: ctx[1], chunk: i, open: false, context: true });
  });
  edges.sort((a, b) => a.pos - b.pos);
  const active = new Set<number>();
  const inContext = new Set<number>();
  const out: Segment[] = [];
  let pos = 0;
  let k = 0;
  while (pos < text.length) {
    while (k < edges.length && edges[k]!.pos <= pos) {
      const edge = edges[k++]!;
      const set = edge.context ? inContext : active;
      if (edge.open) set.add(edge.chunk);
      else set.delete(edge.chunk);
    }
    const next = Math.min(k < edges.length ? edges[k]!.pos : text.length, text.length);
    out.push({ start: pos, end: next, chunks: [...active].sort((a, b) => a - b), context: [...inContext].sort((a, b) => a - b) });
    pos = next;
  }
  return out;
}

/** Chunk counts per bin of token_count, for the histogram: `bins` equal bins from 0 to `top`. */
export function histogram(chunks: Chunk[], top: number, bins: number): number[] {
  const counts = new Array<number>(bins).fill(0);
  const width = Math.max(top, 1) / bins;
  for (const c of chunks) counts[Math.min(bins - 1, Math.floor(c.token_count / width))]!++;
  return counts;
}
