import { hash } from 'node:crypto';

/**
 * Deterministic chunk id from the chunk's position and text: re-chunking gives the same ids.
 * One-shot `crypto.hash` (the same SHA-256 as a Hash object, without building one per chunk).
 */
export function chunkId(start: number, end: number, text: string): string {
  return `chnk_${hash('sha256', `${start}:${end}:${text}`, 'hex').slice(0, 24)}`;
}
