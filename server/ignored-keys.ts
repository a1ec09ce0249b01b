import type { Context } from 'koa';
import { IGNORED_KEYS_HEADER, ignoredKeysHeader } from '../kernel/request.js';

/** Name a body's ignored keys in the response (the one place the header is set, encoded safely). */
export function setIgnoredKeys(ctx: Context, keys: readonly string[]): void {
  if (keys.length) ctx.set(IGNORED_KEYS_HEADER, ignoredKeysHeader(keys));
}

/** A validated request body (service/ checks it): defaults filled in, unknown keys named in a header (as on the plugin routes). */
export function bodyReader<T>(check: (body: unknown, onIgnored: (keys: string[]) => void) => T) {
  return (ctx: Context) =>
    (body: unknown): T =>
      check(body, (ignored) => setIgnoredKeys(ctx, ignored));
}
