import { InvalidFileCursorError, isFileName, type FileRecord } from './store.js';

/**
 * A list cursor: the creation time (ms) and name of the last file on a page, opaque to clients.
 * Files are listed newest first, ties broken by name, so the position survives files created and
 * deleted while a client pages. Both back-ends share this encoding.
 */
export const pageCursor = (r: FileRecord): string => Buffer.from(`${Date.parse(r.created_at)}:${r.name}`).toString('base64url');

export function pageAfter(cursor: string): { at: number; name: string } {
  const m = /^(0|[1-9]\d{0,15}):(file_[0-9a-f]{32})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  // Decoding base64url forgives stray characters: only a cursor that re-encodes to itself is ours.
  if (!m || !isFileName(m[2]!) || Buffer.from(`${m[1]}:${m[2]}`).toString('base64url') !== cursor)
    throw new InvalidFileCursorError('not a cursor of this server');
  return { at: Number(m[1]), name: m[2]! };
}
