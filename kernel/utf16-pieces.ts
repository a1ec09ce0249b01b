/** Code units per piece: the reused buffer stays small (cache-sized) whatever the text's length. */
export const PIECE = 1 << 15;
const scratch = Buffer.allocUnsafeSlow(2 * PIECE);

/**
 * A text's UTF-16LE bytes (little-endian on every platform, lone surrogates as they are), a piece
 * at a time, written into one reused buffer with a native copy: `each(bytes, at)` gets the bytes
 * of the units from `at` on, valid only during the call. The chunk-id key hashes them
 * (kernel/ids.ts); the surrogate-pair scan searches them (kernel/surrogates.ts).
 */
export function forEachUtf16Piece(text: string, each: (bytes: Buffer, at: number) => void): void {
  for (let at = 0; at < text.length; at += PIECE) each(scratch.subarray(0, scratch.write(text.slice(at, at + PIECE), 'utf16le')), at);
}
