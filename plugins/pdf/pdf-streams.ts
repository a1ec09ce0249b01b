import { constants, inflateSync } from 'node:zlib';
import { overLimit } from '../../kernel/chef/errors.js';
import type { ExtractLimits } from '../../kernel/chef/limits.js';

const STREAM = Buffer.from('stream');
const latin1 = new TextDecoder('latin1');

/**
 * Refuse a PDF with a Flate stream that would inflate past maxPdfStreamBytes, before PDF.js
 * reads it: PDF.js has no bound on a stream's decoded size, and keeps it in an ArrayBuffer, which
 * lies outside the worker's capped heap (pool.ts) — a 147 kB file inflating one stream to 150 MB
 * took the process past 1 GB. Each stream whose first filter is FlateDecode is inflated here with
 * the limit as the output cap (truncated data inflates as far as it goes, as PDF.js would);
 * images are skipped, since text extraction never decodes them. Streams behind another filter
 * first (ASCII85Decode, …) are not checked.
 */
export function checkPdfStreams(bytes: Uint8Array, limits: ExtractLimits): void {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = buffer.indexOf(STREAM); at >= 0; at = buffer.indexOf(STREAM, at + STREAM.length)) {
    if (at >= 3 && buffer[at - 3] === 0x65 && buffer[at - 2] === 0x6e && buffer[at - 1] === 0x64) continue; // endstream
    const dict = latin1.decode(buffer.subarray(Math.max(0, at - 4096), at));
    const open = dict.lastIndexOf('obj');
    const header = open >= 0 ? dict.slice(open) : dict;
    if (!/>>\s*$/.test(header) || /\/Subtype\s*\/Image\b/.test(header)) continue;
    if (!/\/Filter\s*(?:\[\s*)?\/(?:FlateDecode|Fl)\b/.test(header)) continue;
    let start = at + STREAM.length;
    if (buffer[start] === 0x0d) start++;
    if (buffer[start] === 0x0a) start++;
    try {
      inflateSync(buffer.subarray(start), { maxOutputLength: limits.maxPdfStreamBytes + 1, finishFlush: constants.Z_SYNC_FLUSH });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
        throw overLimit('bytes in one decompressed stream', limits.maxPdfStreamBytes, 'maxPdfStreamBytes');
      }
      // Data zlib cannot read: PDF.js will fail on it too, or skip it.
    }
  }
}
