/**
 * Small answers' UTF-8 bytes, carved from a shared slab on the thread that asks: for answers that
 * never leave it (a worker's bytes are moved, so a worker encodes into memory of their own). Memory
 * outside the JavaScript heap costs ~2–8 µs per allocation on the bench machine whatever its size
 * (measured), more than serialising a small answer: Node's own pool for small Buffers is 8 KiB, a
 * new one every dozen small answers; a 64 KiB slab serves about a hundred. A slab is freed once no
 * answer cut from it is still held.
 */
const SLAB_BYTES = 64 * 1024;
/** The most bytes one answer may take from a slab (slabWrite); a larger one gets memory of its own. */
export const SLAB_MAX_BYTES = SLAB_BYTES / 4;
/** Strings longer than this get memory of their own (Buffer.from): each UTF-16 unit is at most 3 bytes of UTF-8. */
const SMALL_CHARS = SLAB_MAX_BYTES / 3;
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let used = 0;

export function slabUtf8(s: string): Buffer {
  if (s.length > SMALL_CHARS) return Buffer.from(s, 'utf8');
  return slabWrite(3 * s.length, (into, at) => at + into.write(s, at, 'utf8'));
}

/**
 * The bytes `write` puts in the slab from `at` (at most `max`, at most SLAB_MAX_BYTES; it returns
 * where they end).
 */
export function slabWrite(max: number, write: (into: Buffer, at: number) => number): Buffer {
  if (used + max > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    used = 0;
  }
  const end = write(slab, used);
  const out = slab.subarray(used, end);
  used = (end + 7) & ~7; // the next answer starts aligned
  return out;
}
