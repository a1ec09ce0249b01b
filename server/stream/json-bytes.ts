import type { Context } from 'koa';
import { Readable } from 'node:stream';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answer with JSON a worker serialized, in one or more parts sent one after the other (never
 * joined into one copy here), under the headers Koa gives an object body.
 */
export function sendJsonBytes(ctx: Context, parts: Uint8Array[]): void {
  // A Buffer or stream body would otherwise be application/octet-stream. Set as the header Koa's
  // `ctx.type = 'json'` gives, without its MIME table lookup on every answer.
  ctx.res.setHeader('Content-Type', JSON_TYPE);
  const buffers = parts.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
  if (buffers.length === 1) {
    ctx.body = buffers[0];
  } else {
    ctx.body = Readable.from(buffers, { objectMode: false });
    ctx.length = buffers.reduce((n, b) => n + b.length, 0);
  }
}
