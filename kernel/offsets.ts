import { surrogatePairs } from './surrogates.js';

export type OffsetUnit = 'codepoint' | 'utf16' | 'utf8';

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Convert UTF-16 offsets into `unit`. Code points differ from UTF-16 units only at surrogate
 * pairs, so that case shifts each offset by the pairs before it (the kernel's shared pair scan,
 * which the character tokenizer has usually made for the same text already); UTF-8 needs one sweep
 * over the text. Offsets are sorted first only when they are not already (chunkers emit them in
 * order), so a request costs O(text + chunks). The result may be `offsets` itself.
 */
export function convertOffsets(text: string, offsets: number[], unit: OffsetUnit): number[] {
  if (unit === 'utf16') return offsets;
  if (unit === 'codepoint') {
    const pairs = surrogatePairs(text);
    return pairs.length === 0 ? offsets : toCodePoints(pairs, offsets, sortedOrder(offsets));
  }
  return NON_ASCII.test(text) ? toUtf8(text, offsets, sortedOrder(offsets)) : offsets;
}

/** The indices of `offsets` in ascending order of offset, or undefined when they already are (the usual case). */
function sortedOrder(offsets: readonly number[]): number[] | undefined {
  for (let k = 1; k < offsets.length; k++) {
    if (offsets[k]! < offsets[k - 1]!) return offsets.map((_, i) => i).sort((a, b) => offsets[a]! - offsets[b]!);
  }
  return undefined;
}

/** `pairs`: the low-half index of each surrogate pair; a pair ends at or before `target` when that index is below it. */
function toCodePoints(pairs: Uint32Array, offsets: readonly number[], order: number[] | undefined): number[] {
  let before = 0; // surrogate pairs that end at or before the current offset
  if (order === undefined) {
    // Offsets in order (what chunkers emit): one packed array, pushed as it is walked.
    const out: number[] = [];
    for (let j = 0; j < offsets.length; j++) {
      const target = offsets[j]!;
      while (before < pairs.length && pairs[before]! < target) before++;
      out.push(target - before);
    }
    return out;
  }
  const out = new Array<number>(offsets.length);
  for (let j = 0; j < offsets.length; j++) {
    const k = order[j]!;
    const target = offsets[k]!;
    while (before < pairs.length && pairs[before]! < target) before++;
    out[k] = target - before;
  }
  return out;
}

function toUtf8(text: string, offsets: readonly number[], order: number[] | undefined): number[] {
  const out = new Array<number>(offsets.length);
  let i = 0; // UTF-16 position
  let u = 0; // UTF-8 position
  for (let j = 0; j < offsets.length; j++) {
    const k = order ? order[j]! : j;
    const target = offsets[k]!;
    while (i < target) {
      const c = text.charCodeAt(i);
      const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLow(text.charCodeAt(i + 1));
      u += c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
      i += pair ? 2 : 1;
    }
    out[k] = u;
  }
  return out;
}

const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
