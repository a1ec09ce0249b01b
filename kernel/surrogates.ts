import { forEachUtf16Piece } from './utf16-pieces.js';

const NONE = new Uint32Array(0);

let lastText: string | undefined;
let lastPairs: Uint32Array = NONE;

/** The byte a high surrogate (U+D800–U+DBFF) has in the odd place of its UTF-16LE pair of bytes. */
const HIGH_BYTES = [0xd8, 0xd9, 0xda, 0xdb];

/**
 * Every surrogate pair's low-half index, found in the text's UTF-16LE bytes (a native copy, a piece
 * at a time) by a native byte search for each high surrogate's high byte: ~20× faster here than a
 * regular expression over the string, which reads about a nanosecond per character.
 */
function scanPairs(text: string): Uint32Array {
  const scan = pairScan(text);
  forEachUtf16Piece(text, scan.piece);
  return scan.found();
}

/**
 * The scan of one text, fed its UTF-16LE pieces by whoever writes them (forEachUtf16Piece): the
 * id key's hash takes the same pieces (kernel/engine/steps/chunk.ts), so one pass over the text serves both.
 */
function pairScan(text: string): { piece(bytes: Buffer, at: number): void; found(): Uint32Array } {
  const found: number[] = [];
  let ordered = true;
  const piece = (bytes: Buffer, at: number) => {
    for (const value of HIGH_BYTES) {
      for (let b = bytes.indexOf(value, 1); b >= 0; b = bytes.indexOf(value, b + 1)) {
        if ((b & 1) === 0) continue; // a unit's low byte
        const high = at + (b >> 1);
        const next = text.charCodeAt(high + 1); // read from the text: the pair may straddle two pieces
        if (!(next >= 0xdc00 && next <= 0xdfff)) continue; // a lone high surrogate (or the text's last unit)
        if (found.length > 0 && found[found.length - 1]! > high + 1) ordered = false;
        found.push(high + 1);
      }
    }
  };
  return {
    piece,
    found() {
      if (!ordered) found.sort((a, b) => a - b);
      return found.length ? Uint32Array.from(found) : NONE;
    },
  };
}

/** Below this many units a loop over the text costs less than the copy and the byte searches. */
const SHORT = 512;

function loopPairs(text: string): Uint32Array {
  let found: number[] | undefined;
  for (let i = 0; i + 1 < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) continue;
    const next = text.charCodeAt(i + 1);
    if (next >= 0xdc00 && next <= 0xdfff) (found ??= []).push(++i);
  }
  return found ? Uint32Array.from(found) : NONE;
}

/**
 * The UTF-16 index of the low half of every surrogate pair in `text`, ascending: the positions
 * where code points and UTF-16 units part. The result for the last text asked about is kept (and
 * so that text, until another is asked about), because a request asks twice for the same text (the
 * character tokenizer counting spans, then the kernel converting offsets) and the scan is the
 * costly part of both. Equal texts give equal answers, so a stale hit cannot be wrong.
 */
export function surrogatePairs(text: string): Uint32Array {
  if (text === lastText) return lastPairs;
  const pairs = text.length < SHORT ? loopPairs(text) : scanPairs(text);
  lastText = text;
  lastPairs = pairs;
  return pairs;
}

/**
 * For a reader of the text's UTF-16LE pieces (the id key): a scan to feed them to, when the text's
 * pairs are not known yet and the byte search is how they would be found; `done()` keeps the result
 * as surrogatePairs does. Undefined when there is nothing to scan.
 */
export function pairScanAlong(text: string): { piece(bytes: Buffer, at: number): void; done(): void } | undefined {
  if (text === lastText || text.length < SHORT) return undefined;
  const scan = pairScan(text);
  return {
    piece: scan.piece,
    done() {
      lastText = text;
      lastPairs = scan.found();
    },
  };
}

/**
 * Drop the kept result. For benches that chunk one text over and over: a server meets each text
 * once, so each timed run should pay the scan as a request does.
 */
export function forgetSurrogatePairs(): void {
  lastText = undefined;
  lastPairs = NONE;
}
