import type { Context, Next } from 'koa';
import { parseStrictJson } from '../strict-json.js';
import { RAW_BODY_MIN_BYTES } from './raw-body.js';

/**
 * A small JSON body with a Content-Length and no Content-Encoding is read here, parsed exactly as
 * koa-bodyparser parses it (UTF-8, a BOM dropped, strict mode, prototype poisoning refused, the
 * same errors), and koa-bodyparser, next in the chain, then leaves it alone. Its general path
 * (decoders, inflation, stream limits) costs more than the rest of a small request's parsing.
 * Everything else (no length, compressed, over the limit, or from raw-body.ts' threshold up) goes
 * to the raw path or koa-bodyparser as before.
 */
export function smallJsonBody(limit: number) {
  return async (ctx: Context, next: Next) => {
    const req = ctx.req;
    const header = req.headers['content-length'];
    const length = header === undefined ? NaN : Number(header);
    const small = length <= limit && length < RAW_BODY_MIN_BYTES && (req.headers['content-encoding'] ?? 'identity') === 'identity';
    if (small && ctx.request.body === undefined && !(ctx as { disableBodyParser?: boolean }).disableBodyParser) {
      // Node's parser delivers exactly Content-Length bytes, or the client went away.
      const raw = await readAll(req, length);
      const text = raw.toString('utf8');
      const str = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
      ctx.request.body = parse(str);
      (ctx.request as { rawBody?: string }).rawBody = str;
    }
    await next();
  };
}

function parse(str: string): unknown {
  if (!str) return {};
  try {
    return parseStrictJson(str);
  } catch (e) {
    throw Object.assign(e as Error, { status: 400, body: str }); // as co-body throws it
  }
}

// Listeners are not removed: the request is over once its body is read, and the object goes with it.
function readAll(req: Context['req'], length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.once('end', () => resolve(parts.length === 1 ? parts[0]! : Buffer.concat(parts)));
    req.on('error', reject);
    // raw-body's error for a client that disconnects mid-body (400, type request.aborted).
    req.once('aborted', () => {
      const received = parts.reduce((n, p) => n + p.length, 0);
      reject(Object.assign(new Error('request aborted'), { status: 400, statusCode: 400, expose: true, code: 'ECONNABORTED', expected: length, length, received, type: 'request.aborted' }));
    });
  });
}
