import type { Context } from 'koa';
import { IGNORED_KEYS_HEADER, ignoredKeysHeader } from '../kernel/request.js';

/** Name a body's ignored keys in the response (the one place the header is set, encoded safely). */
export function setIgnoredKeys(ctx: Context, keys: readonly string[]): void {
  if (keys.length) ctx.set(IGNORED_KEYS_HEADER, ignoredKeysHeader(keys));
}
