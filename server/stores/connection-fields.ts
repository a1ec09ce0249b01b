import type { Issue } from '../../kernel/errors.js';

/**
 * Keys that would tell chunkd where to connect or as whom. A request (or a stored pipeline) names a
 * connection the server was configured with, never a place or a credential: chunkd must not
 * connect where a request tells it to (SSRF), nor keep a secret it was sent.
 */
const CONNECTION_KEY = /^(url|uri|urls|host|hosts|hostname|port|path|dir|directory|uri_path|endpoint|base_url|api_base|dsn|connection|connection_string|connection_url|database|database_url|db_url|db_path|user|username|password|passwd|api_key|apikey|token|access_token|secret|credentials|auth|region|cloud_id)$/i;

/** Every connection key anywhere in `value` (a write step, a store request body), as a 422 issue naming the field. */
export function connectionFieldIssues(value: unknown, loc: (string | number)[], depth = 0): Issue[] {
  if (value === null || typeof value !== 'object' || depth > 8) return [];
  const out: Issue[] = [];
  for (const [key, inner] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    if (typeof key === 'string' && CONNECTION_KEY.test(key)) {
      out.push({
        loc: [...loc, key],
        msg: `'${key}' would say where or as whom to connect, and a request never does: name one of the server's store connections instead (they are server settings: --stores FILE or CHUNKD_STORES; GET /v1/stores lists them).`,
        type: 'connection_field',
      });
    } else {
      out.push(...connectionFieldIssues(inner, [...loc, key], depth + 1));
    }
  }
  return out;
}
