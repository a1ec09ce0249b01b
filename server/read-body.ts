import createError from 'http-errors';
import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ChunkdError } from '../kernel/errors.js';

/** Bodies from this size on are copied into a buffer of their own, which can be moved to a worker whole. */
export const OWN_BUFFER_MIN_BYTES = 64 * 1024;

/**
 * A request's body as bytes, read with one set of checks whatever its framing: at most `limit`
 * bytes off the wire and, for a compressed body, at most `limit` bytes once decoded (a small
 * body cannot inflate past it); with a Content-Length, exactly that many bytes. Reading stops at
 * the first byte over a limit. Failures are http-errors with raw-body's `type`s, the errors the
 * error middleware maps: 413 entity.too.large, 400 request.size.invalid / request.aborted,
 * 415 encoding.unsupported, 400 encoding.invalid.
 *
 * A body of OWN_BUFFER_MIN_BYTES or more comes in a buffer that owns its ArrayBuffer (never a
 * slice of a shared pool), each network chunk copied in as it arrives; a smaller one may be the
 * network's own chunk.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const header = req.headers['content-length'];
  const length = header === undefined ? undefined : Number(header);
  if (length !== undefined && length > limit) return Promise.reject(tooLarge(length, limit));
  let decoder: Transform | undefined;
  try {
    decoder = decoderFor(req.headers['content-encoding']);
  } catch (e) {
    return Promise.reject(e as Error);
  }
  return new Promise((resolve, reject) => {
    // A known length of an identity body: one buffer of that size, filled in place as bytes arrive.
    // It is never filled, so the system gives it memory page by page as bytes are written into it: a
    // Content-Length with no body behind it holds address space, not memory. A buffer grown as
    // bytes arrive would copy all received so far into fresh memory at each step, in one call:
    // for a 5 MB body those copies held the event loop 140-370 ms here.
    let fixed: Buffer | undefined;
    try {
      fixed = !decoder && length !== undefined && length >= OWN_BUFFER_MIN_BYTES ? Buffer.allocUnsafeSlow(length) : undefined;
    } catch {
      return reject(
        new ChunkdError('UNAVAILABLE', `The server could not reserve ${length} bytes for this request's body now: retry later, or send a smaller body.`),
      );
    }
    const parts: Buffer[] = [];
    let received = 0; // off the wire
    let size = 0; // of the body (decoded)
    let settled = false;

    const detachRequest = () => req.off('data', onData).off('end', onEnd).off('error', onFail).off('close', onClose);
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      detachRequest();
      req.unpipe();
      req.pause();
      decoder?.destroy();
      reject(error);
    };
    const finish = () => {
      if (settled) return;
      settled = true;
      detachRequest();
      resolve(fixed ?? joined(parts, size));
    };
    const keep = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return fail(tooLarge(size, limit));
      if (fixed) fixed.set(chunk, size - chunk.length);
      else parts.push(chunk);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (length !== undefined && received > length) return fail(sizeMismatch(length, received));
      if (received > limit) return fail(tooLarge(received, limit));
      if (decoder) decoder.write(chunk);
      else keep(chunk);
    };
    const onEnd = () => {
      if (length !== undefined && received !== length) return fail(sizeMismatch(length, received));
      detachRequest();
      if (decoder) decoder.end();
      else finish();
    };
    const onFail = (e: Error) => fail(e);
    const onClose = () => fail(createError(400, 'request aborted', { code: 'ECONNABORTED', expected: length, length, received, type: 'request.aborted' }));

    if (decoder) {
      const encoding = String(req.headers['content-encoding']).trim();
      decoder
        .on('data', keep)
        .once('end', finish)
        .on('error', () =>
          fail(
            createError(400, `The body is not valid ${encoding} data: send it compressed as its Content-Encoding says, or uncompressed without one.`, {
              type: 'encoding.invalid',
            }),
          ),
        );
    }
    req.on('data', onData).once('end', onEnd).once('error', onFail).once('close', onClose);
  });
}

function joined(parts: Buffer[], size: number): Buffer {
  if (size < OWN_BUFFER_MIN_BYTES) return parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
  const body = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const p of parts) {
    body.set(p, at);
    at += p.length;
  }
  return body;
}

/** koa-bodyparser's decodings (gzip, deflate, br); any other Content-Encoding is refused before a byte is read. */
function decoderFor(header: string | undefined): Transform | undefined {
  const encoding = (header ?? 'identity').trim().toLowerCase();
  switch (encoding) {
    case 'identity':
    case '':
      return undefined;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      throw createError(415, `unsupported content encoding "${encoding}"`, { encoding, type: 'encoding.unsupported' });
  }
}

const tooLarge = (length: number, limit: number) => createError(413, 'request entity too large', { length, limit, type: 'entity.too.large' });
const sizeMismatch = (length: number, received: number) =>
  createError(400, 'request size did not match content length', { expected: length, length, received, type: 'request.size.invalid' });
