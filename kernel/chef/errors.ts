import { ChunkdError, isChunkdError } from '../errors.js';
import type { ExtractLimits } from './limits.js';

/** A file its library cannot read (corrupt, truncated, encrypted, not the format its name says): 422. */
export function unreadable(format: string, cause: unknown): ChunkdError {
  if (isChunkdError(cause)) return cause;
  const why = cause instanceof Error ? cause.message : String(cause);
  return new ChunkdError(
    'VALIDATION',
    `The file could not be read as ${format.toUpperCase()} (${clip(why)}): check that it opens in a viewer, save it again as .${format}, and upload it again.`,
  );
}

/** What a 413 about a file tells its sender to do. */
export const FILE_ADVICE = 'split it into smaller files and upload them one by one.';

/** A file whose extraction would pass one of the limits (limits.ts): 413. */
export function overLimit(what: string, limit: number, key: keyof ExtractLimits): ChunkdError {
  return new ChunkdError('TOO_LARGE', `The file has more ${what} than this server extracts (${limit}, limit ${key}): ${FILE_ADVICE}`);
}

/**
 * The limits' 413s speak of a file (most chef work is one); a chef given a JSON `text` was sent
 * no file, so its 413 names what was sent and says to send less, not to upload files.
 */
export function asTextRefusal(e: unknown): unknown {
  if (!isChunkdError(e) || e.code !== 'TOO_LARGE' || typeof e.detail !== 'string' || !e.detail.endsWith(FILE_ADVICE)) return e;
  const detail = e.detail
    .replace(/^The file has more (.*?) than this server extracts/, 'The JSON text makes more $1 than this server processes')
    .replace(
      /^The file takes longer to extract than this server spends on one file/,
      'The JSON text takes longer to process than this server spends on one document',
    )
    .replace(
      /^Extracting the file's text needs more memory than this server allows one file/,
      'Processing the JSON text needs more memory than this server allows one document',
    )
    .replace(FILE_ADVICE, 'send a shorter text, or split it over several requests.');
  return new ChunkdError('TOO_LARGE', detail);
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
