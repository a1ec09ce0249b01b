import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { ChunkdError } from '../../kernel/errors.js';
import { matchedRoute } from '../dispatch.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * With API keys configured, every request needs `Authorization: Bearer <key>` (the header
 * Chonkie's clients send) unless the route it was matched to (server/dispatch.ts) is declared
 * `public`: deny by default, so a request that matched no route, however its path is spelled, is
 * refused here too. Keys are compared as SHA-256 digests with timingSafeEqual, against
 * every key, so timing reveals neither a key's length nor which key came close.
 */
export function auth(keys: readonly string[]) {
  const digests = keys.map(digest);
  return async (ctx: Context, next: Next) => {
    if (digests.length === 0 || matchedRoute(ctx)?.public === true) return next();
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
