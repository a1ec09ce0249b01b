import { ChunkdError, type Issue } from '../../kernel/errors.js';
import type { Registry } from '../../kernel/registry.js';
import { flagOf } from '../settings.js';

/** Keys that carry where or as whom to connect: a request that holds one is refused, whatever the handshake. */
const CONNECTION_KEYS = [
  'url',
  'uri',
  'dsn',
  'host',
  'hostname',
  'port',
  'path',
  'connection',
  'connection_string',
  'database_url',
  'endpoint',
  'api_key',
  'apikey',
  'password',
  'user',
  'username',
  'token',
  'secret',
  'credentials',
];

/**
 * For the surfaces: a request body (or a write step's config) that tries to say where to connect
 * (a URL, host, path or credential, or any handshake's connection setting) is a 422 naming the
 * field, since chunkd connects only where its operator said (a request could otherwise reach
 * internal hosts: SSRF). Walks nested objects; never echoes the value.
 */
export function connectionFieldIssues(body: unknown, registry?: Registry, loc: (string | number)[] = ['body']): Issue[] {
  const forbidden = new Set([...CONNECTION_KEYS, ...(registry?.list('handshake').flatMap((p) => Object.keys(p.manifest.config.properties)) ?? [])]);
  const issues: Issue[] = [];
  const walk = (value: unknown, at: (string | number)[], depth: number) => {
    if (!value || typeof value !== 'object' || depth > 4) return;
    for (const [key, inner] of Object.entries(value)) {
      if (forbidden.has(key.toLowerCase())) {
        issues.push({
          loc: [...at, key],
          msg: `${key}: a request names a store connection ("store", listed by GET /v1/stores) and a collection, never a URL, host, path or credential; connections are set by the operator (${flagOf('stores')}).`,
          type: 'connection_field',
        });
      } else walk(inner, [...at, Array.isArray(value) ? Number(key) : key], depth + 1); // an index is a number in a loc, as the validator gives it
    }
  };
  walk(body, loc, 0);
  return issues;
}

/** The 422 for a body holding a connection field (see connectionFieldIssues); nothing when it holds none. */
export function refuseConnectionFields(body: unknown, registry?: Registry, loc: (string | number)[] = ['body']): void {
  const issues = connectionFieldIssues(body, registry, loc);
  if (issues.length) throw new ChunkdError('VALIDATION', issues);
}
