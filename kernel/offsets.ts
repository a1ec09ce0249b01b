export type OffsetUnit = 'codepoint' | 'utf16' | 'utf8';

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Convert UTF-16 offsets into `unit` with one sweep over the text (offsets are sorted first), so a
 * request with thousands of chunks costs O(text + chunks log chunks).
 */
export function convertOffsets(text: string, offsets: readonly number[], unit: OffsetUnit): number[] {
  if (unit === 'utf16' || !NON_ASCII.test(text)) return offsets.slice();
  const order = offsets.map((_, i) => i).sort((a, b) => offsets[a]! - offsets[b]!);
  const out = new Array<number>(offsets.length);
  let i = 0; // UTF-16 position
  let u = 0; // position in the target unit
  for (const k of order) {
    const target = offsets[k]!;
    while (i < target) {
      const c = text.charCodeAt(i);
      const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLow(text.charCodeAt(i + 1));
      if (unit === 'codepoint') u += 1;
      else u += c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
      i += pair ? 2 : 1;
    }
    out[k] = u;
  }
  return out;
}

const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
