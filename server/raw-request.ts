import type { Context } from 'koa';
import type { RawRequest } from '../service/large-bodies/answer.js';
import { setIgnoredKeys } from './ignored-keys.js';
import { requestSignal } from './middleware/deadline.js';

/**
 * A large body left unparsed by the body rule (server/middleware/body.ts), handed to a service
 * that moves it to a worker: taken out of the context, since it is detached on this thread once moved.
 */
export function takeRawBody(ctx: Context): RawRequest {
  const body = ctx.state.rawBody as Buffer;
  ctx.state.rawBody = undefined;
  return { body, signal: requestSignal(ctx), onIgnored: (keys) => setIgnoredKeys(ctx, keys) };
}
