import type { Static } from '#typebox';
import { configError, type ChunkerImpl } from '../../kernel/index.js';
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
  return { chunk: (text) => cut(text, options) };
}
