import type { TSchema } from '#typebox';
import { ChunkdError, type Issue } from '../../kernel/errors.js';
import type { Registry } from '../../kernel/registry.js';
import { flagOf } from '../settings.js';

/**
 * Keys that carry where or as whom to connect, compared as folded by `fold` (`api-key`, `API_KEY`
 * and `ａｐｉ＿ｋｅｙ` are one key): refused in the parts of a body its schema leaves open
 * (a question's own keys, a step's plugin config), whatever the handshake.
 */
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
  'base_url',
  'endpoint',
  'api_key',
  'password',
  'user',
  'username',
  'token',
  'secret',
  'credentials',
];

/** Letters of other scripts drawn like Latin ones: a key spelled with them reads as the Latin key. */
const LOOK_ALIKES: Record<string, string> = {
  а: 'a', в: 'b', с: 'c', ԁ: 'd', е: 'e', һ: 'h', і: 'i', ј: 'j', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', ԛ: 'q', ѕ: 's', т: 't', и: 'u', х: 'x', у: 'y',
  α: 'a', ε: 'e', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x',
}; // prettier-ignore

/** A key as compared: NFKC (full-width and other compatibility forms to their letters), lower case, look-alikes to Latin, only letters and digits. */
export function fold(key: string): string {
  return [...key.normalize('NFKC').toLowerCase()]
    .map((c) => LOOK_ALIKES[c] ?? c)
    .join('')
    .replace(/[^a-z0-9]/g, '');
}

const message = (key: string) =>
  `${key}: a request names a store connection ("store", listed by GET /v1/stores) and a collection, never a URL, host, path or credential; connections are set by the operator (${flagOf('stores')}).`;

type Node = TSchema & {
  type?: string;
  properties?: Record<string, TSchema>;
  additionalProperties?: boolean | TSchema;
  items?: TSchema;
  anyOf?: TSchema[];
};

/** The member of a union that describes `value`: the object or array one for an object or an array. */
function memberFor(schema: Node, value: unknown): Node | undefined {
  if (!schema.anyOf) return schema;
  const want = Array.isArray(value) ? 'array' : 'object';
  return (schema.anyOf as Node[]).find((m) => m.type === want);
}

/**
 * The connection fields of a request body (or a write step): an allowlist. The body, and every
 * object the schema declares closed, is held to its properties: a key it does not name is refused, so no spelling,
 * look-alike or nesting gets a connection setting through. Where the schema leaves an object open
 * (`additionalProperties: true`: a question's own keys, a step's plugin config), its keys are
 * compared with the connection keys (and every handshake's settings) as `fold`ed, at any depth.
 * Each is a 422 naming the field (chunkd connects only where its operator said: a request could
 * otherwise reach internal hosts, SSRF); the value is never echoed.
 */
export function connectionFieldIssues(body: unknown, schema: TSchema, registry?: Registry, loc: (string | number)[] = ['body']): Issue[] {
  const forbidden = new Set([...CONNECTION_KEYS, ...(registry?.list('handshake').flatMap((p) => Object.keys(p.manifest.config.properties)) ?? [])].map(fold));
  const issues: Issue[] = [];
  const refuse = (at: (string | number)[], key: string) => issues.push({ loc: [...at, key], msg: message(key), type: 'connection_field' });
  // An explicit stack: a body nested however deep is walked whole, never by recursion.
  const stack: { value: unknown; schema: Node | undefined; at: (string | number)[]; root?: boolean }[] = [
    { value: body, schema: schema as Node, at: loc, root: true },
  ];
  while (stack.length) {
    const { value, schema: declared, at, root } = stack.pop()!;
    if (!value || typeof value !== 'object') continue;
    const node = declared && memberFor(declared, value);
    if (Array.isArray(value)) {
      value.forEach((inner, i) => stack.push({ value: inner, schema: node?.items as Node | undefined, at: [...at, i] }));
      continue;
    }
    for (const [key, inner] of Object.entries(value)) {
      const known = node?.properties?.[key] as Node | undefined;
      // The body itself is held to its schema's keys even where it takes others to name them back (the ignored keys): a body says what it means by its own keys only.
      const extra = root ? false : node?.additionalProperties;
      if (known) stack.push({ value: inner, schema: known, at: [...at, key] });
      else if (node?.properties && extra !== true && typeof extra !== 'object') refuse(at, key);
      else if (forbidden.has(fold(key))) refuse(at, key);
      else stack.push({ value: inner, schema: typeof extra === 'object' ? (extra as Node) : undefined, at: [...at, key] });
    }
  }
  return issues.sort((a, b) => JSON.stringify(a.loc).localeCompare(JSON.stringify(b.loc)));
}

/** The 422 for a body holding a connection field (see connectionFieldIssues); nothing when it holds none. */
export function refuseConnectionFields(body: unknown, schema: TSchema, registry?: Registry, loc: (string | number)[] = ['body']): void {
  const issues = connectionFieldIssues(body, schema, registry, loc);
  if (issues.length) throw new ChunkdError('VALIDATION', issues);
}
