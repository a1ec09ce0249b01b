import AjvCompiler from '@fastify/ajv-compiler';
import type { TSchema } from 'typebox';
import { ChunkdError, type Issue } from './errors.js';
import { unknownNameMessage } from './suggest.js';

/**
 * Validators are compiled once per schema at start-up. Coercion is off (`{"text": 7}` must fail),
 * defaults are filled in, unknown keys are kept (real clients send extra keys; the caller reports
 * them), and every problem is reported at once, as FastAPI-era clients expect.
 */
const buildCompiler = AjvCompiler();
const compile = buildCompiler(
  {},
  {
    customOptions: { coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: true, verbose: true, strict: false },
  },
) as (route: { schema: TSchema }) => AjvValidate;

interface AjvError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  message?: string;
  params: Record<string, unknown>;
  parentSchema?: Record<string, unknown>;
}
type AjvValidate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

export type Validator<T> = (data: unknown, loc?: (string | number)[]) => T;

/** Compile a schema into a function that fills defaults in place and throws a 422 listing the issues. */
export function compileValidator<T>(schema: TSchema): Validator<T> {
  const check = compile({ schema });
  return (data, loc = ['body']) => {
    if (check(data)) return data as T;
    throw new ChunkdError('VALIDATION', toIssues(check.errors ?? [], loc, data));
  };
}

function toIssues(errors: AjvError[], base: (string | number)[], root: unknown): Issue[] {
  // A failed anyOf is explained by the one branch whose JSON kind matches the value, when there is
  // exactly one (a chunk object missing a field names that field); otherwise it is reported once,
  // as a whole: the branches' own errors then say nothing useful.
  const unions = errors.filter((e) => e.keyword === 'anyOf');
  const explainedBy = new Map(unions.map((u) => [u, branchOf(u, root)] as const));
  const hidden = (e: AjvError) =>
    unions.some((u) => {
      const branch = explainedBy.get(u);
      if (e === u) return branch !== undefined;
      return e.schemaPath.startsWith(`${u.schemaPath}/`) && (branch === undefined || !e.schemaPath.startsWith(`${u.schemaPath}/${branch}/`));
    });
  const seen = new Set<string>();
  const issues: Issue[] = [];
  for (const e of errors) {
    if (hidden(e)) continue;
    const issue = toIssue(e, base, root);
    const key = JSON.stringify(issue.loc);
    if (!seen.has(key)) issues.push(issue);
    seen.add(key);
  }
  return issues;
}

/** The index of the only branch of a failed anyOf whose JSON kind matches the value, if exactly one does. */
function branchOf(union: AjvError, root: unknown): number | undefined {
  const branches = (union.parentSchema?.anyOf ?? []) as Record<string, unknown>[];
  const kind = kindOf(valueAt(root, pathOf(union)));
  const matching = branches.flatMap((b, i) => (schemaKinds(b).includes(kind) ? [i] : []));
  return matching.length === 1 ? matching[0] : undefined;
}

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** JSON kinds a schema can accept; every kind when it does not say. */
function schemaKinds(schema: Record<string, unknown>): string[] {
  if ('const' in schema) return [kindOf(schema.const)];
  if (typeof schema.type === 'string') return [schema.type === 'integer' ? 'number' : schema.type];
  return ['null', 'array', 'object', 'string', 'number', 'boolean'];
}

const pathOf = (e: AjvError) =>
  e.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));

function toIssue(e: AjvError, base: (string | number)[], root: unknown): Issue {
  const path = pathOf(e);
  if (e.keyword === 'required') {
    const field = String(e.params.missingProperty);
    return { loc: [...base, ...path, field], msg: `Field required: add '${field}'.`, type: 'missing' };
  }
  if (e.keyword === 'additionalProperties') {
    const field = String(e.params.additionalProperty);
    const known = Object.keys((e.parentSchema?.properties as object | undefined) ?? {});
    return { loc: [...base, ...path, field], msg: `${unknownNameMessage('field', field, known)} Remove it or correct its name.`, type: 'extra_forbidden' };
  }
  const field = path.length ? String(path[path.length - 1]) : 'body';
  const shown = JSON.stringify(valueAt(root, path))?.slice(0, 80) ?? 'undefined';
  const msg = e.keyword === 'anyOf' ? `must be ${describe(e.parentSchema ?? {})}` : (e.message ?? 'is invalid');
  return { loc: [...base, ...path], msg: `${field} ${msg} (got ${shown})`, type: e.keyword };
}

/** A short English description of what a schema accepts, for union errors. */
export function describe(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Record<string, unknown>[]).map(describe).join(' or ');
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' or ');
  if (schema.type === 'array') return `a list of ${plural(describe((schema.items as Record<string, unknown>) ?? {}))}`;
  if (typeof schema.type === 'string') return `${/^[aeiou]/.test(schema.type) ? 'an' : 'a'} ${schema.type}${bounds(schema)}`;
  return 'a valid value';
}

/** Numeric bounds in words: ' > 0 and < 1'. */
function bounds(schema: Record<string, unknown>): string {
  const words = { exclusiveMinimum: '>', minimum: '≥', exclusiveMaximum: '<', maximum: '≤' };
  const parts = Object.entries(words).flatMap(([key, op]) => (typeof schema[key] === 'number' ? [`${op} ${schema[key]}`] : []));
  return parts.length ? ` ${parts.join(' and ')}` : '';
}

const plural = (s: string) => s.replace(/^an? (\w+)/, '$1s');

function valueAt(root: unknown, path: (string | number)[]): unknown {
  let v: unknown = root;
  for (const p of path) v = v != null && typeof v === 'object' ? (v as Record<string | number, unknown>)[p] : undefined;
  return v;
}
