import type { Context } from 'koa';
import type { TObject } from '#typebox';
import { validationError } from '../kernel/errors.js';
import { compileValidator } from '../kernel/validation.js';

/**
 * A reader of a route's query string against its declared schema (RouteDef.query): the same schema
 * is the OpenAPI parameters. A query value is text, so a number parameter is converted when it is
 * written as one, and left as text otherwise for the schema to refuse; problems are 422s at
 * ["query", <name>]. Parameters the schema does not declare are ignored, as unknown body keys are.
 */
export function queryReader<T>(schema: TObject): (ctx: Context) => T {
  const validate = compileValidator<T>(schema);
  const numeric = new Set(
    Object.entries(schema.properties)
      .filter(([, s]) => ['integer', 'number'].includes((s as { type?: string }).type ?? ''))
      .map(([k]) => k),
  );
  return (ctx) => {
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(schema.properties)) {
      const value = ctx.query[name];
      if (value === undefined) continue;
      if (Array.isArray(value)) throw validationError(['query', name], `${name} is given ${value.length} times: give it once.`, 'query_repeated');
      out[name] = numeric.has(name) && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    }
    return validate(out, ['query']);
  };
}
