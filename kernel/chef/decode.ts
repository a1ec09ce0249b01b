import { ChunkdError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Bytes that must be UTF-8 text (txt, md): anything else is a 422 that says how to fix it. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ChunkdError('VALIDATION', 'The file is not valid UTF-8 text: save it as UTF-8 and upload it again.');
  }
}

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
  if (bytes.includes(0)) return false;
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
