import { isUtf8 } from 'node:buffer';

/**
 * The byte offset where the first ill-formed UTF-8 sequence starts (the Unicode
 * standard's table 3-7: no overlong form, no surrogate, nothing past U+10FFFF, no sequence cut
 * short), or -1 when every byte does. The fast check runs first; the scan only for a refusal.
 */
export function invalidUtf8At(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  const n = bytes.length;
  for (let i = 0; i < n;) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let len: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) len = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      len = 3;
      if (b === 0xe0) lo = 0xa0; // overlong
      if (b === 0xed) hi = 0x9f; // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      len = 4;
      if (b === 0xf0) lo = 0x90; // overlong
      if (b === 0xf4) hi = 0x8f; // past U+10FFFF
    } else return i;
    for (let k = 1; k < len; k++) {
      const c = bytes[i + k];
      // The sequence that starts at i is ill-formed (or cut short): i is the first byte that is not text.
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += len;
  }
  return -1;
}
