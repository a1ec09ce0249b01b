import { upperBound } from '../../kernel/index.js';

/**
 * Pieces of source and how they become chunks: glue rejoins a piece to the neighbour it belongs
 * with, then packing fills each chunk greedily. Both count tokens by binary search in one
 * encoding of the whole source.
 */

export interface Atom {
  start: number;
  end: number;
  /** Named node types the piece covers, after those of the constructs it is a part of. */
  types: string[];
  glue: Glue;
}

/** How a piece belongs with its neighbours: bit flags. */
export type Glue = number;
export const Glue = {
  None: 0,
  /** A trailing comment or punctuation: it belongs with the piece before it. */
  Back: 1,
  /** A leading comment or decorator, or a construct's header: it belongs with the piece after it. */
  Next: 2,
  /** It ends mid-line: the rest of its line follows. */
  Line: 4,
} as const;

export interface Source {
  text: string;
  /** The tokenizer's end offsets for the whole text (one encoding, counted by binary search). */
  ends: Uint32Array;
  size: number;
}

/** Index of the first token ending after `x`: token counts of spans are differences of these. */
export const tokenIndex = (src: Source, x: number) => upperBound(src.ends, x);
export const tokens = (src: Source, start: number, end: number) => tokenIndex(src, end) - tokenIndex(src, start);

/**
 * Rejoin pieces to their neighbour where the pair fits: trailing pieces first, then the rest of a
 * line (so a signature is whole before it joins its body), then leading pieces.
 */
export function glue(atoms: Atom[], src: Source): Atom[] {
  const fits = (a: Atom, b: Atom) => tokens(src, a.start, b.end) <= src.size;
  const back: Atom[] = [];
  for (const a of atoms) {
    const prev = back.at(-1);
    if (a.glue & Glue.Back && prev && fits(prev, a)) back[back.length - 1] = merge(prev, a);
    else back.push(a);
  }
  let out = back;
  for (const flag of [Glue.Line, Glue.Next]) {
    const next: Atom[] = [];
    for (let i = out.length - 1; i >= 0; i--) {
      const a = out[i]!;
      const b = next.at(-1);
      if (a.glue & flag && b && fits(a, b)) next[next.length - 1] = merge(a, b);
      else next.push(a);
    }
    out = next.reverse();
  }
  return out;
}

/** `a` then `b`: it keeps how `a` joins what precedes it and how `b` joins what follows it. */
const merge = (a: Atom, b: Atom): Atom => ({
  start: a.start,
  end: b.end,
  types: [...a.types, ...b.types],
  glue: (a.glue & Glue.Back) | (b.glue & (Glue.Next | Glue.Line)),
});

/** Greedy packing: each chunk takes atoms while it holds at most `size` tokens. */
export function pack(atoms: Atom[], src: Source): Atom[] {
  const chunks: Atom[] = [];
  for (const a of atoms) {
    const cur = chunks.at(-1);
    if (cur && tokens(src, cur.start, a.end) <= src.size) {
      cur.end = a.end;
      for (const t of a.types) cur.types.push(t); // not push(...): a glued atom may hold any number of node types
    } else {
      chunks.push({ ...a, types: [...a.types], glue: Glue.None });
    }
  }
  return chunks;
}
