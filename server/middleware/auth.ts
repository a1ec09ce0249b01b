import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { ChunkdError } from '../../kernel/errors.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * With API keys configured, every /v1 route needs `Authorization: Bearer <key>` (the header
 * Chonkie's clients send). Keys are compared as SHA-256 digests with timingSafeEqual, against
 * every key, so timing reveals neither a key's length nor which key came close.
 */
export function auth(keys: readonly string[]) {
  const digests = keys.map(digest);
  return async (ctx: Context, next: Next) => {
    if (digests.length === 0 || !ctx.path.startsWith('/v1/')) return next();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('Authorization'));
    const given = digest(match?.[1] ?? '');
    let ok = false;
    for (const d of digests) ok = timingSafeEqual(d, given) || ok;
    if (!match || !ok) {
      throw new ChunkdError('UNAUTHORIZED', match ? 'The API key is not valid.' : 'This server requires an API key: send Authorization: Bearer <key>.', {
        'WWW-Authenticate': 'Bearer',
      });
    }
    await next();
  };
}
