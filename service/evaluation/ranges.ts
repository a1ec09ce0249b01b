/**
 * Character ranges in documents, and the set operations the retrieval metrics are defined with
 * (union, intersection, difference), with the benchmark's conventions: ranges that touch merge in
 * a union, and two ranges that only touch intersect in an empty range (which still counts as an
 * intersection: the chunk "touches" the reference).
 */
export interface Range {
  /** The document the range lies in; ranges of different documents never meet. */
  doc: string;
  start: number;
  /** Exclusive. */
  end: number;
}

/** Total length of the ranges, counted once per range (overlaps count twice: this is a sum, not a union). */
export const sumOfRanges = (ranges: readonly Range[]): number => ranges.reduce((n, r) => n + (r.end - r.start), 0);

/** The union as disjoint ranges, sorted by document then start; ranges that overlap or touch merge. */
export function union(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => (a.doc < b.doc ? -1 : a.doc > b.doc ? 1 : a.start - b.start));
  const out: Range[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && last.doc === r.doc && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else out.push({ ...r });
  }
  return out;
}

/** The intersection of two ranges of one document, empty when they only touch; undefined when they are apart. */
export function intersect(a: Range, b: Range): Range | undefined {
  if (a.doc !== b.doc) return undefined;
  const start = Math.max(a.start, b.start);
  const end = Math.min(a.end, b.end);
  return start <= end ? { doc: a.doc, start, end } : undefined;
}

/** Each range with `cut` taken out (a range that `cut` splits gives two pieces); ranges `cut` does not reach are kept as they are. */
export function subtract(ranges: readonly Range[], cut: Range): Range[] {
  const out: Range[] = [];
  for (const r of ranges) {
    if (r.doc !== cut.doc || r.end < cut.start || r.start > cut.end) {
      out.push(r);
      continue;
    }
    if (r.start < cut.start) out.push({ doc: r.doc, start: r.start, end: cut.start });
    if (r.end > cut.end) out.push({ doc: r.doc, start: cut.end, end: r.end });
  }
  return out;
}
