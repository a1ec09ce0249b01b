import type { Chunk } from '../../chunk.js';
import { ascii, JSON_INTEGER_BYTES, JSON_UNIT_BYTES, writeAscii, writeJsonInteger, writeJsonString } from './json-bytes.js';

/**
 * Lists of chunks the kernel built with exactly the keys id, text, start_index, end_index and
 * token_count, in that order, integers for the three numbers (kernel/engine/steps/chunk.ts, plainChunks), and that
 * nothing has changed since (a refinery's, a marked or a stripped list is a new list): their JSON is
 * written field by field, about twice as fast as JSON.stringify of each object (0.8 against 1.8 µs
 * for five chunks, measured), the same bytes; a small list's straight into bytes (writePlainList).
 */
const PLAIN = new WeakSet<readonly Chunk[]>();

export function markPlain(list: Chunk[]): Chunk[] {
  PLAIN.add(list);
  return list;
}

export const isPlain = (list: readonly Chunk[]): boolean => PLAIN.has(list);

/** JSON.stringify(chunk) of a chunk of a plain list. */
export const plainChunkJson = (c: Chunk): string =>
  '{"id":' +
  JSON.stringify(c.id) +
  ',"text":' +
  JSON.stringify(c.text) +
  ',"start_index":' +
  c.start_index +
  ',"end_index":' +
  c.end_index +
  ',"token_count":' +
  c.token_count +
  '}';

const ID = ascii('{"id":');
const TEXT = ascii(',"text":');
const START = ascii(',"start_index":');
const END = ascii(',"end_index":');
const COUNT = ascii(',"token_count":');
/** A plain chunk's bytes besides its two strings' units: keys, braces, the strings' quotes, three integers. */
const CHUNK_BYTES = ID.length + TEXT.length + START.length + END.length + COUNT.length + 1 + 4 + 3 * JSON_INTEGER_BYTES;

/** The most bytes writePlainList can take for `list` (of a plain list; with `texts`, any list's texts). */
export function plainListBound(list: readonly Chunk[], texts: boolean): number {
  let n = 2 + list.length;
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    n += texts ? 2 + JSON_UNIT_BYTES * c.text.length : CHUNK_BYTES + JSON_UNIT_BYTES * (c.id.length + c.text.length);
  }
  return n;
}

/**
 * JSON.stringify(list) of a plain list (with `texts`, of its texts) in UTF-8 from `at`, given
 * plainListBound bytes of room; returns where it ends.
 */
export function writePlainList(into: Uint8Array, at: number, list: readonly Chunk[], texts: boolean): number {
  into[at++] = 0x5b;
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (i) into[at++] = 0x2c;
    if (texts) {
      at = writeJsonString(into, at, c.text);
      continue;
    }
    at = writeJsonString(into, writeAscii(into, at, ID), c.id);
    at = writeJsonString(into, writeAscii(into, at, TEXT), c.text);
    at = writeJsonInteger(into, writeAscii(into, at, START), c.start_index);
    at = writeJsonInteger(into, writeAscii(into, at, END), c.end_index);
    at = writeJsonInteger(into, writeAscii(into, at, COUNT), c.token_count);
    into[at++] = 0x7d;
  }
  into[at++] = 0x5d;
  return at;
}
