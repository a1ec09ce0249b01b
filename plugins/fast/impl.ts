import type { Static } from 'typebox';
import type { ChunkerImpl, Span } from '../../kernel/index.js';
import type { FastConfig } from './index.js';
import { cutEnds, delimiterTable, type ScanOptions } from './scan.js';

export function create(config: Static<typeof FastConfig>): ChunkerImpl {
  const options: ScanOptions = {
    size: config.chunk_size,
    table: delimiterTable(config.delimiters),
    pattern: config.pattern ? Buffer.from(config.pattern, 'utf8') : undefined,
    prefix: config.prefix,
    consecutive: config.consecutive,
    forwardFallback: config.forward_fallback,
  };
  return { chunk: (text) => spans(text, options) };
}

/** The chunks of `text` as UTF-16 spans; token_count is the chunk's size in UTF-8 bytes (the unit chunk_size limits). */
export function spans(text: string, options: ScanOptions): Span[] {
  const bytes = Buffer.from(text, 'utf8');
  const ends = cutEnds(bytes, options);
  const out = new Array<Span>(ends.length);
  if (bytes.length === text.length) {
    // ASCII: bytes and UTF-16 units coincide.
    let start = 0;
    for (let k = 0; k < ends.length; k++) {
      out[k] = { start, end: ends[k]!, tokenCount: ends[k]! - start };
      start = ends[k]!;
    }
    return out;
  }
  // Walk the bytes once: every byte that starts a character is one UTF-16 unit, two for a 4-byte
  // sequence (a surrogate pair). A lone surrogate was encoded as U+FFFD: 3 bytes, one unit, as in the text.
  let b = 0;
  let u = 0;
  let startByte = 0;
  let startUnit = 0;
  for (let k = 0; k < ends.length; k++) {
    const endByte = ends[k]!;
    for (; b < endByte; b++) {
      const c = bytes[b]!;
      if ((c & 0xc0) !== 0x80) u += c >= 0xf0 ? 2 : 1;
    }
    out[k] = { start: startUnit, end: u, tokenCount: endByte - startByte };
    startByte = endByte;
    startUnit = u;
  }
  return out;
}
