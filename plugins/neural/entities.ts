/** A run of tokens the model gave the same non-O label: where a chunk ends. */
export interface Entity {
  /** First non-space character of the first token (token offsets exclude leading spaces). */
  start: number;
  /** End of the last token: the chunk ends here. */
  end: number;
}

const entityOf = (label: string) => label.replace(/^[BI]-/, '');
const isOutside = (label: string) => label.toUpperCase() === 'O';

/**
 * transformers' token-classification pipeline with aggregation "simple", which Chonkie runs:
 * each token takes its most probable label; consecutive tokens with the same entity (B-/I-
 * prefixes removed; a B- starts a new one) form one entity; O tokens are dropped. Token k covers
 * text from ends[k-1] (0 for the first) to ends[k].
 */
export function entities(text: string, ends: Uint32Array, labels: readonly string[]): Entity[] {
  const out: Entity[] = [];
  let open: { entity: string; start: number; end: number } | undefined;
  const close = () => {
    if (open) out.push({ start: open.start, end: open.end });
    open = undefined;
  };
  labels.forEach((label, k) => {
    if (isOutside(label)) return close();
    const entity = entityOf(label);
    const end = ends[k]!;
    if (open && open.entity === entity && !label.startsWith('B-')) {
      open.end = end;
      return;
    }
    close();
    let start = k === 0 ? 0 : ends[k - 1]!;
    while (start < end && /\s/.test(text[start]!)) start++;
    open = { entity, start, end };
  });
  close();
  return out;
}

/** Chonkie's rule: a split starting fewer than `min` characters after the previous one's end replaces it. */
export function mergeClose(found: readonly Entity[], min: number): Entity[] {
  const out: Entity[] = [];
  for (const e of found) {
    if (out.length && e.start - out[out.length - 1]!.end < min) out[out.length - 1] = e;
    else out.push(e);
  }
  return out;
}

/** Chunks end at each entity's end; the rest of the text is the last chunk. */
export function cutsToRanges(found: readonly Entity[], length: number): [number, number][] {
  const out: [number, number][] = [];
  let at = 0;
  for (const { end } of found) {
    if (end > at && end <= length) out.push([at, end]);
    at = Math.max(at, end);
  }
  if (at < length) out.push([at, length]);
  return out;
}
