import bourne from '@hapi/bourne';

// co-body's strict JSON test (koa-bodyparser's `strict: true`): an object or array after JSON whitespace.
const STRICT_JSON = /^[\x20\x09\x0a\x0d]*(\[|\{)/;

/**
 * A JSON body as koa-bodyparser (co-body) parses it in strict mode: an object or an array, and a
 * `__proto__` key refused (prototype poisoning). Throws a SyntaxError with co-body's message.
 * Shared by the small-body reader and the workers that parse large bodies.
 */
export function parseStrictJson(text: string): unknown {
  if (!STRICT_JSON.test(text)) throw new SyntaxError('invalid JSON, only supports object and array');
  return bourne.parse(text, { protoAction: 'error' });
}
