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
  try {
    return bourne.parse(text, { protoAction: 'error' });
  } catch (e) {
    // bourne's own message names no key; the client's JSON is valid, only this key is refused.
    throw (e as Error).message === BOURNE_PROTO ? new SyntaxError(FORBIDDEN_KEY) : e;
  }
}

const BOURNE_PROTO = 'Object contains forbidden prototype property';
/** The message of a body refused for its `__proto__` key (it crosses from a worker as text: the error middleware knows it by it). */
export const FORBIDDEN_KEY =
  'The body has a "__proto__" key, which this server refuses (it could change the prototype of the objects it reads): rename the key or remove it.';

/** The body as koa-bodyparser (co-body) reads it: UTF-8 with a BOM dropped, strict, no `__proto__` key. */
export function parseJsonBody(bytes: Uint8Array): { value: unknown } | { invalidJson: string } {
  const text = new TextDecoder().decode(bytes);
  try {
    return { value: parseStrictJson(text) };
  } catch (e) {
    return { invalidJson: (e as Error).message };
  }
}

/** The error koa-bodyparser raises for such a body, so the error middleware answers it alike. */
export const invalidJsonError = (message: string) => Object.assign(new SyntaxError(message), { status: 400 });
