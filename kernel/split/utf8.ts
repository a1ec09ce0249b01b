/**
 * UTF-8 length of text[start, end), counted no further than `cap`: the minimum-length rule only
 * asks whether a piece is shorter than the minimum, and most pieces answer from their UTF-16 length
 * alone (a unit is 1 to 3 bytes; a surrogate pair, two units, is 4). A lone surrogate counts as the
 * 3 bytes of the U+FFFD it is encoded as.
 */
export function utf8LengthUpTo(text: string, start: number, end: number, cap: number): number {
  const units = end - start;
  if (units >= cap) return cap;
  let bytes = 0;
  for (let i = start; i < end && bytes < cap; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return Math.min(bytes, cap);
}
