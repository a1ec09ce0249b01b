import { ChunkdError, isChunkdError } from '../errors.js';
import type { ExtractLimits } from './limits.js';

/** A file its library cannot read (corrupt, truncated, encrypted, not the format its name says): 422. */
export function unreadable(format: string, cause: unknown): ChunkdError {
  if (isChunkdError(cause)) return cause;
  const why = cause instanceof Error ? cause.message : String(cause);
  return new ChunkdError('VALIDATION', `The file could not be read as ${format.toUpperCase()} (${clip(why)}): check that it opens in a viewer, save it again as .${format}, and upload it again.`);
}

/** A file whose extraction would pass one of the limits (limits.ts): 413. */
export function overLimit(what: string, limit: number, key: keyof ExtractLimits): ChunkdError {
  return new ChunkdError('TOO_LARGE', `The file has more ${what} than this server extracts (${limit}, limit ${key}): split it into smaller files and upload them one by one.`);
}

/**
 * The error with the limit key in an overLimit message replaced by the name the operator knows
 * it by (a server setting such as `--max-text-chars`); other errors are returned as they are.
 */
export function renameLimit(e: unknown, names: Partial<Record<keyof ExtractLimits, string>>): unknown {
  if (!isChunkdError(e) || e.code !== 'TOO_LARGE' || typeof e.detail !== 'string') return e;
  for (const [key, name] of Object.entries(names)) {
    const marker = `, limit ${key}):`;
    if (name && e.detail.includes(marker)) return new ChunkdError('TOO_LARGE', e.detail.replace(marker, `, limit ${name}):`));
  }
  return e;
}

/** The text grew past maxTextChars. */
export function checkTextLength(chars: number, limits: ExtractLimits): void {
  if (chars > limits.maxTextChars) throw overLimit('text characters', limits.maxTextChars, 'maxTextChars');
}

const clip = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s).replace(/\s+/g, ' ').trim();
