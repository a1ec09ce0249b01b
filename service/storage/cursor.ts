import { InvalidCursorError } from './store.js';

/**
 * A list cursor: the `seq` of the last pipeline on a page, opaque to clients (a position, not a
 * number to do arithmetic on). Both back-ends order by a `seq` and share this encoding.
 */
export const cursorOf = (seq: number) => Buffer.from(`seq:${seq}`).toString('base64url');

export function seqOf(cursor: string): number {
  const m = /^seq:([1-9]\d{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  // Decoding base64url forgives stray characters: only a cursor that re-encodes to itself is ours.
  if (!m || cursorOf(Number(m[1])) !== cursor) throw new InvalidCursorError(`not a cursor of this server`);
  return Number(m[1]);
}
