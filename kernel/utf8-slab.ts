/**
 * A string's UTF-8 bytes, carved from a shared slab on the thread that asks: for answers that never
 * leave it (a worker's bytes are moved, so a worker encodes into memory of their own). Memory
 * outside the JavaScript heap costs ~2–8 µs per allocation on the bench machine whatever its size
 * (measured), more than serialising a small answer: Node's own pool for small Buffers is 8 KiB, a
 * new one every dozen small answers; a 64 KiB slab serves about a hundred. A slab is freed once no
 * answer cut from it is still held.
 */
const SLAB_BYTES = 64 * 1024;
/** Strings longer than this get memory of their own (Buffer.from): a slab serves only small ones. */
const SMALL_CHARS = SLAB_BYTES / 8;
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let used = 0;

export function slabUtf8(s: string): Buffer {
  if (s.length > SMALL_CHARS) return Buffer.from(s, 'utf8');
  if (used + 3 * s.length > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    used = 0;
  }
  const n = slab.write(s, used, 'utf8');
  const out = slab.subarray(used, used + n);
  used = (used + n + 7) & ~7; // the next answer starts aligned
  return out;
}
