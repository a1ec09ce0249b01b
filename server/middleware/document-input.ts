import type { Context, Next } from 'koa';
import { resolveDocument } from '../../service/files/document-input.js';
import type { FileStore } from '../../service/files/store.js';
import { matchedRoute } from '../dispatch.js';

/** Whether resolveDocument has anything to do: a body object with a `file` key. */
const namesFile = (body: unknown): boolean => body !== null && typeof body === 'object' && !Array.isArray(body) && 'file' in body;

/**
 * The middleware, after the body is parsed: a `file` reference becomes `text`. A large body is not
 * parsed yet (a worker parses it, service/large-bodies/): its route resolves the reference with
 * resolveDocument once the worker hands the parsed body back.
 */
export function documentInput(store: () => FileStore) {
  // A pass-through (no promise of its own) unless the body names a file: nearly every request sends text.
  return (ctx: Context, next: Next) => {
    const body = ctx.request.body;
    if (!matchedRoute(ctx)?.documentInput || !namesFile(body)) return next();
    return resolveDocument(body, store()).then((document) => {
      ctx.state.document = document;
      return next();
    });
  };
}
