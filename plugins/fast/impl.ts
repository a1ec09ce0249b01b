import type { Static } from 'typebox';
import { configError, type ChunkerImpl, type Span } from '../../kernel/index.js';
import type { FastConfig } from './index.js';
import { cut, delimiterTable, type ScanOptions } from './scan.js';

export function create(config: Static<typeof FastConfig>): ChunkerImpl {
  if (config.pattern && !config.pattern.isWellFormed()) {
    throw configError('pattern contains a lone surrogate (half of a UTF-16 pair), which is not a character: send whole characters.');
  }
  const options: ScanOptions = {
    size: config.chunk_size,
    table: delimiterTable(config.delimiters),
    pattern: config.pattern || undefined,
    prefix: config.prefix,
    consecutive: config.consecutive,
    forwardFallback: config.forward_fallback,
  };
  return { chunk: (text) => spans(text, options) };
}

/** The chunks of `text` as UTF-16 spans; token_count is the chunk's size in UTF-8 bytes (the unit chunk_size limits). */
export function spans(text: string, options: ScanOptions): Span[] {
  const { ends, byteEnds } = cut(text, options);
  const out = new Array<Span>(ends.length);
  let start = 0;
  let startB = 0;
  for (let k = 0; k < ends.length; k++) {
    out[k] = { start, end: ends[k]!, tokenCount: byteEnds[k]! - startB };
    start = ends[k]!;
    startB = byteEnds[k]!;
  }
  return out;
}
