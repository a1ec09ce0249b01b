export type OffsetUnit = 'codepoint' | 'utf16' | 'utf8';

const NON_ASCII = /[^\x00-\x7f]/;
const PAIR = /[\ud800-\udbff][\udc00-\udfff]/g;

/**
 * Convert UTF-16 offsets into `unit`. Code points differ from UTF-16 units only at surrogate
 * pairs, so that case finds the pairs with one native regex scan and shifts each offset by the
 * pairs before it; UTF-8 needs one sweep over the text. Offsets are sorted first only when they
 * are not already (chunkers emit them in order), so a request costs O(text + chunks).
 */
export function convertOffsets(text: string, offsets: readonly number[], unit: OffsetUnit): number[] {
  if (unit === 'utf16' || !NON_ASCII.test(text)) return offsets.slice();
  const order = sortedOrder(offsets);
  return unit === 'codepoint' ? toCodePoints(text, offsets, order) : toUtf8(text, offsets, order);
}

function sortedOrder(offsets: readonly number[]): number[] {
  const order = offsets.map((_, i) => i);
  for (let k = 1; k < offsets.length; k++) if (offsets[k]! < offsets[k - 1]!) return order.sort((a, b) => offsets[a]! - offsets[b]!);
  return order;
}

function toCodePoints(text: string, offsets: readonly number[], order: number[]): number[] {
  const out = new Array<number>(offsets.length);
  PAIR.lastIndex = 0;
  let pair = PAIR.exec(text);
  let before = 0; // surrogate pairs that end at or before the current offset
  for (const k of order) {
    const target = offsets[k]!;
    while (pair && pair.index + 2 <= target) {
      before++;
      pair = PAIR.exec(text);
    }
    out[k] = target - before;
  }
  return out;
}

function toUtf8(text: string, offsets: readonly number[], order: number[]): number[] {
  const out = new Array<number>(offsets.length);
  let i = 0; // UTF-16 position
  let u = 0; // UTF-8 position
  for (const k of order) {
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
