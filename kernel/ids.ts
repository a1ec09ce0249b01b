import { createHash } from 'node:crypto';

/** Deterministic chunk id from the chunk's position and text: re-chunking gives the same ids. */
export function chunkId(start: number, end: number, text: string): string {
  return `chnk_${createHash('sha256').update(`${start}:${end}:`).update(text).digest('hex').slice(0, 24)}`;
}
