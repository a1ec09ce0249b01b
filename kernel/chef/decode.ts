import { isUtf8 } from 'node:buffer';
import { isMainThread } from 'node:worker_threads';
import { ChunkdError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Files decoded by decodeUtf8 on the main thread, and their bytes (tests and the bench read it). */
export const mainThreadDecodes = { files: 0, bytes: 0 };

/** Bytes that must be UTF-8 text (txt, md): anything else is a 422 that says how to fix it. */
export function decodeUtf8(bytes: Uint8Array): string {
  if (isMainThread) {
    mainThreadDecodes.files++;
    mainThreadDecodes.bytes += bytes.byteLength;
  }
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ChunkdError('VALIDATION', 'The file is not valid UTF-8 text: save it as UTF-8 and upload it again.');
  }
}

/**
 * Where the text decodeUtf8 makes of these bytes starts in them: 3 after a UTF-8 BOM (which the
 * decoder drops), else 0. From there on the bytes are exactly the text's UTF-8 encoding.
 */
export const utf8TextStart = (bytes: Uint8Array): number => (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0);

/**
 * HTML in the charset it declares (a BOM, or `<meta charset>` / `http-equiv` in its first 1024
 * bytes, as browsers look for it), else UTF-8. An unknown label or bytes invalid in the declared
 * charset are a 422.
 */
export function decodeHtml(bytes: Uint8Array): string {
  const label = sniffCharset(bytes);
  if (!label) return decodeUtf8(bytes);
  let decoder: { decode(input: Uint8Array): string };
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    throw new ChunkdError('VALIDATION', `The HTML declares the charset '${label}', which this server cannot decode: save it as UTF-8 and upload it again.`);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw new ChunkdError('VALIDATION', `The HTML is not valid ${label} text, the charset it declares: save it as UTF-8 and upload it again.`);
  }
}

function sniffCharset(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if ((bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe)) return bytes[0] === 0xfe ? 'utf-16be' : 'utf-16le';
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  return /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1]?.toLowerCase();
}

/** Whether bytes read as text: valid UTF-8 with no NUL byte (binary formats almost always hold one). */
export function isUtf8Text(bytes: Uint8Array): boolean {
  // Validated natively, without making the string: a sniff runs on the event loop.
  return !bytes.includes(0) && isUtf8(bytes);
}
