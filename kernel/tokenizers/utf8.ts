/**
 * Map cumulative UTF-8 byte offsets (non-decreasing) to UTF-16 offsets, snapping an offset that
 * falls inside a character forward to that character's end. One pass over the text.
 */
export function byteEndsToUtf16(text: string, byteEnds: ArrayLike<number>): Uint32Array {
  const out = new Uint32Array(byteEnds.length);
  let i = 0; // UTF-16 index, always on a code-point boundary
  let b = 0; // UTF-8 offset of i
  for (let k = 0; k < byteEnds.length; k++) {
    const target = byteEnds[k]!;
    while (b < target && i < text.length) {
      const c = text.charCodeAt(i);
      if (c < 0x80) {
        b += 1;
        i += 1;
      } else if (c < 0x800) {
        b += 2;
        i += 1;
      } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) {
        b += 4;
        i += 2;
      } else {
        b += 3; // BMP character, or a lone surrogate (encoded as U+FFFD, three bytes)
        i += 1;
      }
    }
    out[k] = i;
  }
  return out;
}

const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
