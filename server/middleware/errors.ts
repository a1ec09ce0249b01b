import { bodyTooLarge, closeIfUnread } from './body.js';
import type { Context, Next } from 'koa';
import { ChunkdError, isChunkdError } from '../../kernel/errors.js';
import type { Logger } from '../../service/logger.js';
import { FORBIDDEN_KEY } from '../../wire/strict-json.js';

/**
 * Every failure leaves as `{"detail", "code", "message"}`: our own errors as declared, body-parser and Koa
 * errors mapped to the catalogue, anything else a 500 that names nothing internal.
 */
export function errorMiddleware(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (e) {
      const err = toChunkdError(e);
      if (err.status >= 500 && err.code === 'INTERNAL') {
        logger.log('error', 'unhandled error', { method: ctx.method, path: ctx.path, error: String((e as Error)?.stack ?? e) });
      }
      ctx.status = err.status;
      ctx.set(err.headers);
      closeIfUnread(ctx); // a refused request's body (401, 403, 413, a 504 mid-upload…) is never drained
      ctx.body = err.toJSON();
    }
  };
}

function toChunkdError(e: unknown): ChunkdError {
  if (isChunkdError(e)) return e;
  const http = e as { status?: number; type?: string; expose?: boolean; message?: string; limit?: number };
  if (e instanceof SyntaxError && http.status === 400 && e.message === FORBIDDEN_KEY) {
    return new ChunkdError('VALIDATION', [{ loc: ['body', '__proto__'], msg: FORBIDDEN_KEY, type: 'json_forbidden_key' }]);
  }
  if (http.type === 'entity.parse.failed' || (e instanceof SyntaxError && http.status === 400)) {
    return new ChunkdError('VALIDATION', [
      { loc: ['body'], msg: 'The body is not a valid JSON object: send one, e.g. {"text": "..."}.', type: 'json_invalid' },
    ]);
  }
  if (http.type === 'entity.too.large' || http.status === 413) {
    return bodyTooLarge(http.limit);
  }
  // inflation (koa-bodyparser's decompressor) throws a bare 415 for any other Content-Encoding.
  if (http.status === 415) {
    return new ChunkdError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Encoding: send the body uncompressed, or compressed with gzip, deflate or br.');
  }
  if (http.type === 'encoding.unsupported' || http.type === 'charset.unsupported') {
    return new ChunkdError('BAD_REQUEST', 'Unsupported body encoding: send UTF-8 JSON.');
  }
  if (http.expose && http.status && http.status < 500) {
    return new ChunkdError(http.status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST', http.message ?? 'Bad request.');
  }
  return new ChunkdError('INTERNAL', 'Internal server error. The server log has the details.');
}
