/** What both sides of a pooled request share: reading a JSON body as koa-bodyparser does, and answers as moved bytes. */
import type { Context } from 'koa';
import { Readable } from 'node:stream';
import type { ErrorCode, Issue } from '../../kernel/errors.js';
import { isChunkdError } from '../../kernel/errors.js';
import type { Limits } from '../limits.js';
import { parseStrictJson } from '../strict-json.js';

/** The body as koa-bodyparser (co-body) reads it: UTF-8 with a BOM dropped, strict, no `__proto__` key. */
export function parseJsonBody(bytes: Uint8Array): { value: unknown } | { invalidJson: string } {
  const text = new TextDecoder().decode(bytes);
  try {
    return { value: parseStrictJson(text) };
  } catch (e) {
    return { invalidJson: (e as Error).message };
  }
}

/** The error koa-bodyparser raises for such a body, so the error middleware answers it alike. */
export const invalidJsonError = (message: string) => Object.assign(new SyntaxError(message), { status: 400 });

/** The exact bytes Koa sends for a JSON body. */
export const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

export type ErrorData = { code: ErrorCode; detail: string | Issue[]; headers: Record<string, string> };

/** A ChunkdError as data, to cross the thread boundary; anything else is rethrown (a bug, reported by the pool). */
export function errorData(e: unknown): ErrorData {
  if (!isChunkdError(e)) throw e;
  return { code: e.code, detail: e.detail, headers: e.headers };
}

/** A job's answer with the buffers to move (not copy) to the main thread. */
export const moved = <T>(value: T, buffers: Uint8Array[] = []) => ({ value, transfer: buffers.map((b) => b.buffer as ArrayBuffer) });

/** Only the limits, from the settings: what a worker needs to check them. */
export const limitsOf = ({ maxTexts, maxTextChars, maxChunks }: Limits): Limits => ({ maxTexts, maxTextChars, maxChunks });

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
