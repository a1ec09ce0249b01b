import type { Socket } from 'node:net';
import type { Context, Next } from 'koa';
import { ChunkdError, isChunkdError } from '../../kernel/errors.js';
import { INLINE_MAX_CHARS } from '../../kernel/engine/index.js';
import { matchedRoute } from '../dispatch.js';
import { invalidJsonError, parseStrictJson } from '../../wire/strict-json.js';
import { readBody } from '../read-body.js';
import type { RouteDef } from '../route.js';
import { settingText } from '../../service/settings.js';

/** From this size on a body a worker can parse is handed to one unparsed: the pool's own threshold, in bytes. */
export const INLINE_BODY_MAX_BYTES = INLINE_MAX_CHARS;

/**
 * The one body rule, for every route, after routing and auth (an unmatched or refused request's
 * body is never read):
 * - a route that declares no body schema never reads one;
 * - a route that reads its own body (`streamedBody`: an upload, a job under --max-job-bytes) is left to do so;
 * - every body is read by readBody (server/read-body.ts) up to the route's limit: its own
 *   `maxBodyBytes` when below --max-body-bytes, else --max-body-bytes; over it → 413, with or
 *   without a Content-Length, compressed or not;
 * - on a route that can parse in a worker (`rawBody`), a body of INLINE_BODY_MAX_BYTES or more is
 *   left unparsed in ctx.state.rawBody for the worker (service/large-bodies/) when there are workers,
 *   whatever its content or Accept header;
 * - any other body is parsed here, on the event loop: small by this rule or by the route's limit
 *   (or the server runs without workers, everything inline by choice).
 * Every body is read as JSON whatever its Content-Type: `curl -d '{...}'` sends a form type by default.
 */
export function requestBody(maxBodyBytes: number, hasWorkers: () => boolean) {
  return async (ctx: Context, next: Next) => {
    const route = matchedRoute(ctx);
    if (route?.streamedBody) return next();
    if (!route?.body) {
      closeIfUnread(ctx);
      return next();
    }
    const limit = Math.min(route.maxBodyBytes ?? Infinity, maxBodyBytes);
    let bytes: Buffer;
    try {
      bytes = await readBody(ctx.req, limit);
    } catch (e) {
      const err = e as { type?: string };
      throw err.type === 'entity.too.large' ? bodyTooLarge(limit, limit < maxBodyBytes ? route : undefined) : e;
    }
    // Whatever it holds (a `file` reference too) and whatever the client accepts: a worker parses it (service/large-bodies/).
    if (route.rawBody && bytes.length >= INLINE_BODY_MAX_BYTES && hasWorkers()) ctx.state.rawBody = bytes;
    else ctx.request.body = parseJson(bytes);
    return next();
  };
}

/** A JSON body as koa-bodyparser reads it (UTF-8, a BOM dropped, strict, no `__proto__` key); an empty body is `{}`. */
function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return {};
  const text = bytes.toString('utf8');
  try {
    return parseStrictJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    if (isChunkdError(e)) throw e;
    throw invalidJsonError((e as Error).message);
  }
}

/** The 413 of a body over its limit: a route's own (below --max-body-bytes), or --max-body-bytes, which it then names. */
export function bodyTooLarge(limit: number | undefined, route?: RouteDef): ChunkdError {
  if (route)
    return new ChunkdError(
      'TOO_LARGE',
      `The request body is larger than the limit of ${limit} bytes for ${route.method.toUpperCase()} ${route.path}; send a smaller body.`,
    );
  return new ChunkdError(
    'TOO_LARGE',
    `The request body is larger than the limit of ${limit ?? 'the server'} bytes; send less per request or raise ${settingText('maxBodyBytes')}.`,
  );
}

/**
 * A body left unread (no route, a route without a body, or a read refused part-way) would hold
 * the keep-alive connection while Node drains it: the connection closes after the answer instead.
 */
export function closeIfUnread(ctx: Context): void {
  const { headers, complete } = ctx.req;
  if (!complete && (headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0'))) {
    ctx.set('Connection', 'close');
    lingeringClose(ctx.req.socket);
  }
}

/** What a closing connection still reads, and for how long, after its answer (see lingeringClose). */
export const LINGER = { bytes: 16 * 1024 * 1024, ms: 5000, everyMs: 20 };

/**
 * A client still sending a body the server refused would get a reset, not the answer, if the
 * connection were destroyed with its bytes unread (the kernel drops the answer it had not read yet):
 * so, once the answer is sent, the server closes its side and goes on reading (and discarding)
 * until the client closes, for at most LINGER.bytes and LINGER.ms; then it destroys the connection.
 */
function lingeringClose(socket: Socket): void {
  if ((socket as LingeringSocket).lingers) return;
  (socket as LingeringSocket).lingers = true;
  // Node closes a `Connection: close` socket with destroySoon once the answer is written.
  socket.destroySoon = function (this: Socket) {
    if (this.writable) this.end();
    const from = this.bytesRead;
    const stop = () => {
      clearInterval(check);
      clearTimeout(deadline);
      this.destroy();
    };
    const check = setInterval(() => this.bytesRead - from > LINGER.bytes && stop(), LINGER.everyMs);
    const deadline = setTimeout(stop, LINGER.ms);
    check.unref();
    deadline.unref();
    this.once('close', stop).once('end', stop);
    this.resume();
  };
}

type LingeringSocket = Socket & { lingers?: boolean };
