import type { Context, Next } from 'koa';
import { resolveDocument } from '../../service/files/document-input.js';
import type { FileStore } from '../../service/files/store.js';
import { matchedRoute } from '../dispatch.js';

/**
 * The middleware, after the body is parsed: a `file` reference becomes `text`. A large body is not
 * parsed yet (a worker parses it, service/pooled/): its route resolves the reference with
 * resolveDocument once the worker hands the parsed body back.
 */
export function documentInput(store: () => FileStore) {
  return async (ctx: Context, next: Next) => {
    if (matchedRoute(ctx)?.documentInput) ctx.state.document = await resolveDocument(ctx.request.body, store());
    return next();
  };
}
