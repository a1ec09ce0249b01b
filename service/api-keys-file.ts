import { readFileSync } from 'node:fs';
import { ChunkdError } from '../kernel/errors.js';

/**
 * API keys from a file, one per line; blank lines and `#` comments are skipped. A file is the way to
 * give keys that other local users cannot see (a command line shows in `ps`). Refusals name the file
 * and a line number, never a key.
 */
export function readApiKeysFile(file: string, setting: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const why =
      (e as { code?: string }).code === 'ENOENT' ? 'it does not exist' : `it cannot be read (${(e as { code?: string }).code ?? (e as Error).message})`;
    throw new ChunkdError('BAD_REQUEST', `${setting} names ${file}, but ${why}: give a readable file of API keys, one per line.`);
  }
  const keys: string[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    // A Bearer token has no whitespace: such a key could never be sent.
    if (/\s/.test(line))
      throw new ChunkdError(
        'BAD_REQUEST',
        `${setting} (${file}), line ${i + 1}: a key holds whitespace, which no Authorization header can carry; put one key per line.`,
      );
    keys.push(line);
  }
  if (keys.length === 0) {
    throw new ChunkdError(
      'BAD_REQUEST',
      `${setting} names ${file}, which holds no key (only blank lines or # comments): add one key per line, or leave the setting out to run without keys.`,
    );
  }
  return keys;
}
