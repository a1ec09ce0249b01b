import AjvCompiler from '@fastify/ajv-compiler';
import type { TSchema } from 'typebox';
import { ChunkdError, type Issue } from './errors.js';

/**
 * Validators are compiled once per schema at start-up. Coercion is off (`{"text": 7}` must fail),
 * defaults are filled in, and unknown keys are kept (real clients send extra keys; the caller
 * reports them).
 */
const buildCompiler = AjvCompiler();
const compile = buildCompiler(
  {},
  {
    customOptions: { coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false, strict: false },
  },
) as (route: { schema: TSchema }) => AjvValidate;

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
  data?: unknown;
}
type AjvValidate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

export type Validator<T> = (data: unknown, loc?: (string | number)[]) => T;

/** Compile a schema into a function that fills defaults in place and throws a 422 listing the issue. */
export function compileValidator<T>(schema: TSchema): Validator<T> {
  const check = compile({ schema });
  return (data, loc = ['body']) => {
    if (check(data)) return data as T;
    throw new ChunkdError('VALIDATION', toIssues(check.errors ?? [], loc, data));
  };
}

function toIssues(errors: AjvError[], base: (string | number)[], root: unknown): Issue[] {
  // With anyOf, Ajv reports each failed branch and then the anyOf itself: keep the summary.
  const anyOf = errors.find((e) => e.keyword === 'anyOf');
  const picked = anyOf ? [anyOf] : errors.slice(0, 1);
  return picked.map((e) => {
    const path = e.instancePath
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    if (e.keyword === 'required') {
      const field = String(e.params.missingProperty);
      return { loc: [...base, ...path, field], msg: `Field required: add '${field}' to the request.`, type: 'missing' };
    }
    const input = valueAt(root, path);
    const field = path.length ? String(path[path.length - 1]) : 'body';
    const shown = JSON.stringify(input)?.slice(0, 80) ?? 'undefined';
    const msg = e.keyword === 'anyOf' ? 'has none of the allowed types or values' : (e.message ?? 'is invalid');
    return { loc: [...base, ...path], msg: `${field} ${msg} (got ${shown})`, type: e.keyword };
  });
}

function valueAt(root: unknown, path: (string | number)[]): unknown {
  let v: unknown = root;
  for (const p of path) v = v != null && typeof v === 'object' ? (v as Record<string | number, unknown>)[p] : undefined;
  return v;
}
