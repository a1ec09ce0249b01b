/**
 * JSON values written straight into UTF-8 bytes, exactly as JSON.stringify then a UTF-8 encoding
 * give them, without making the strings in between: for small answers, where building and
 * joining those strings (and flattening them to encode) is most of the serializer's work and
 * memory (kernel/engine/output/plain-json.ts). The caller gives room enough: see JSON_UNIT_BYTES.
 */

/** The most bytes one UTF-16 unit of a string takes in JSON: `\u00XX` for a control, `\uDXXX` for a lone surrogate. */
export const JSON_UNIT_BYTES = 6;
/** The most bytes a non-negative safe integer takes (2^53 − 1 has 16 digits). */
export const JSON_INTEGER_BYTES = 16;

/** `s` as a JSON string (quotes, escapes) in UTF-8 from `at`; returns where it ends. */
export function writeJsonString(into: Uint8Array, at: number, s: string): number {
  into[at++] = 0x22;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c) into[at++] = c;
      else at = writeEscape(into, at, c);
    } else if (c < 0x800) {
      into[at++] = 0xc0 | (c >> 6);
      into[at++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      into[at++] = 0xe0 | (c >> 12);
      into[at++] = 0x80 | ((c >> 6) & 0x3f);
      into[at++] = 0x80 | (c & 0x3f);
    } else {
      const d = c <= 0xdbff && i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        into[at++] = 0xf0 | (cp >> 18);
        into[at++] = 0x80 | ((cp >> 12) & 0x3f);
        into[at++] = 0x80 | ((cp >> 6) & 0x3f);
        into[at++] = 0x80 | (cp & 0x3f);
        i++;
      } else at = writeUnicodeEscape(into, at, c); // a lone surrogate: JSON.stringify escapes it
    }
  }
  into[at++] = 0x22;
  return at;
}

/** A non-negative safe integer's digits from `at`; returns where they end. */
export function writeJsonInteger(into: Uint8Array, at: number, v: number): number {
  if (v < 10) {
    into[at] = 0x30 + v;
    return at + 1;
  }
  let digits = 1;
  for (let x = v; x >= 10; x = Math.floor(x / 10)) digits++;
  const end = at + digits;
  for (let k = end - 1, x = v; k >= at; k--, x = Math.floor(x / 10)) into[k] = 0x30 + (x % 10);
  return end;
}

/** ASCII text (a key and its punctuation) from `at`; returns where it ends. */
export function writeAscii(into: Uint8Array, at: number, bytes: Uint8Array): number {
  for (let k = 0; k < bytes.length; k++) into[at++] = bytes[k]!;
  return at;
}

export const ascii = (s: string): Uint8Array => Uint8Array.from(s, (ch) => ch.charCodeAt(0));

/** JSON.stringify's short escapes: `\b \t \n \f \r \" \\`. */
const SHORT: Record<number, number> = { 0x08: 0x62, 0x09: 0x74, 0x0a: 0x6e, 0x0c: 0x66, 0x0d: 0x72, 0x22: 0x22, 0x5c: 0x5c };

function writeEscape(into: Uint8Array, at: number, c: number): number {
  const short = SHORT[c];
  if (short === undefined) return writeUnicodeEscape(into, at, c);
  into[at] = 0x5c;
  into[at + 1] = short;
  return at + 2;
}

const HEX = ascii('0123456789abcdef');

/** `\uxxxx`, lower-case hex as JSON.stringify writes it. */
function writeUnicodeEscape(into: Uint8Array, at: number, c: number): number {
  into[at] = 0x5c;
  into[at + 1] = 0x75;
  into[at + 2] = HEX[(c >> 12) & 15]!;
  into[at + 3] = HEX[(c >> 8) & 15]!;
  into[at + 4] = HEX[(c >> 4) & 15]!;
  into[at + 5] = HEX[c & 15]!;
  return at + 6;
}
