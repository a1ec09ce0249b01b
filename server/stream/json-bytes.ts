import type { Context } from 'koa';
import { Readable } from 'node:stream';

/**
 * Answer with JSON a worker serialized, in one or more parts sent one after the other (never
 * joined into one copy here), under the headers Koa gives an object body.
 */
export function sendJsonBytes(ctx: Context, parts: Uint8Array[]): void {
  ctx.type = 'json'; // a Buffer or stream body would otherwise be application/octet-stream
  const buffers = parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength));
  if (buffers.length === 1) {
    ctx.body = buffers[0];
  } else {
    ctx.body = Readable.from(buffers, { objectMode: false });
    ctx.length = buffers.reduce((n, b) => n + b.length, 0);
  }
}

