import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type AjvCompilerFactory from '@fastify/ajv-compiler';
import type { TSchema } from '#typebox';
import { ChunkdError, type Issue } from './errors.js';
import { unknownNameMessage } from './suggest.js';

/** Most issues one 422 lists; the rest are counted in one last entry (a 60 KB body can hold 30,000 problems). */
export const MAX_ISSUES = 20;
/**
 * Bodies with more values than this are not searched for every problem: Ajv's allErrors mode keeps
 * an error object per bad value, so a large body of bad values would cost memory in proportion. Such
 * a body gets its first problem (and a note saying so); smaller ones get every problem at once.
 */
export const FULL_REPORT_MAX_VALUES = 5_000;

/**
 * Validators are compiled once per schema, or taken from those the build compiled (builtValidator,
 * below). `chunkd serve` compiles every one in stop-at-first-error mode before it listens
 * (compileValidators: never on a valid request's path) and the allErrors ones once it listens, one
 * per turn of the event loop (compileInTurns: ~2 ms each, where all at once before listening held
 * the start for ~140 ms of ~900); a body refused before its turn compiles
 * its own, as outside a server, where each is compiled when first used. Coercion is off
 * (`{"text": 7}` must fail), defaults are filled in, unknown keys are kept (real clients send extra
 * keys; the caller reports them). A body is first checked in Ajv's stop-at-first-error mode (what
 * every valid body costs); only a failed one is checked again in allErrors mode, so every problem is
 * reported at once, as FastAPI-era clients expect. The schemas themselves are not checked against
 * JSON Schema's meta-schema (`validateSchema: false`: ~55 ms of the ~275 a server spent compiling): they are
 * built with TypeBox, and Ajv still refuses an unknown type while compiling. A plugins directory's
 * config schemas are checked, once, at discovery (schemaProblem).
 */
let buildCompiler: ReturnType<typeof AjvCompilerFactory> | undefined;
/** Ajv itself is loaded on the first compile, not with this module: a worker thread imports this module and validates nothing, and loading Ajv costs ~0.1 s of CPU (measured) in each, at every start. */
const compilerFactory = () => (buildCompiler ??= (createRequire(import.meta.url)('@fastify/ajv-compiler') as typeof AjvCompilerFactory)());
// code.optimize off: Ajv's pass over the generated code was ~25% of compiling, and validating ran no faster with it (measured).
const OPTIONS = {
  coerceTypes: false,
  useDefaults: true,
  removeAdditional: false,
  verbose: true,
  strict: false,
  validateSchema: false,
  code: { optimize: false },
};
type Compile = (route: { schema: TSchema }) => AjvValidate;
/** Each mode's Ajv instance is made on its first use: a thread that validates nothing (most workers) never makes one. */
const compilerOf = (allErrors: boolean, validateSchema = false): (() => Compile) => {
  let compiler: Compile | undefined;
  return () => (compiler ??= compilerFactory()({}, { customOptions: { ...OPTIONS, allErrors, validateSchema } }) as Compile);
};
const firstCompiler = compilerOf(false);
const allCompiler = compilerOf(true);
const metaCheckingCompiler = compilerOf(false, true);

/** Ajv's options for a mode, as a standalone build of its validators must compile them (scripts/validators.mjs). */
export const compilerOptions = (allErrors: boolean): Record<string, unknown> => ({ ...OPTIONS, allErrors });

/** Names a schema's validator in one mode: by the schema's JSON, so a validator built for another schema is never used. */
export const validatorKey = (allErrors: boolean, schema: TSchema): string =>
  `${allErrors ? 'all' : 'first'}-${createHash('sha256').update(JSON.stringify(schema)).digest('base64url')}`;

/**
 * Validators generated when dist/ is built (dist/kernel/validators/KEY.cjs, by scripts/validators.mjs):
 * Ajv's standalone code for every schema `chunkd serve` makes at start-up, in both modes, a file
 * each, named by validatorKey. Compiling them took ~0.4 s of CPU at every server start; a process
 * loads only the files of the validators it uses (the tests' tree links them, scripts/test-tree.ts).
 * Where there are none (the sources under tsx), and for a schema the build did not know (a plugins
 * directory's, one a setting changes), each is compiled as before.
 */
const BUILT = new URL('./validators/', import.meta.url);
let built: ((key: string) => AjvValidate | undefined) | null | undefined;
function builtValidator(allErrors: boolean, schema: TSchema): AjvValidate | undefined {
  if (built === undefined) {
    const load = createRequire(import.meta.url);
    built = existsSync(BUILT)
      ? (key) => {
          try {
            return load(fileURLToPath(new URL(`${key}.cjs`, BUILT))) as AjvValidate;
          } catch (e) {
            if ((e as { code?: string }).code !== 'MODULE_NOT_FOUND') throw e;
            return undefined;
          }
        }
      : null;
  }
  return built?.(validatorKey(allErrors, schema));
}
const compileFirst: Compile = (route) => builtValidator(false, route.schema) ?? firstCompiler()(route);
const compileAll: Compile = (route) => builtValidator(true, route.schema) ?? allCompiler()(route);

/** Every schema a validator was made for so far, once each (the build's standalone validators are made for these). */
const made = new Set<TSchema>();
export const madeSchemas = (): TSchema[] => [...made];

/**
 * What is wrong with a schema chunkd did not build (a plugin's config from a plugins directory),
 * by JSON Schema's meta-schema: `minimum: "5"` compiles without the check, and would then compare
 * numbers with a string. Undefined when it is a valid schema.
 */
export function schemaProblem(schema: TSchema): string | undefined {
  try {
    metaCheckingCompiler()({ schema });
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

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

/** Validators made whose stop-at-first-error and allErrors functions are not compiled yet. */
const uncompiledFirst = new Set<() => void>();
const uncompiledAll = new Set<() => void>();

/** How many validators made so far wait for each mode's compilation (tests read it). */
export const uncompiledCounts = (): { first: number; all: number } => ({ first: uncompiledFirst.size, all: uncompiledAll.size });

/** Compile every validator made so far in stop-at-first-error mode (`chunkd serve`, before it listens). */
export function compileValidators(): void {
  for (const compile of [...uncompiledFirst]) compile();
}

/**
 * Compile the allErrors validators made so far, one per turn of the event loop, so requests are
 * served in between. Resolves when all are compiled.
 */
export async function compileInTurns(): Promise<void> {
  for (const compile of [...uncompiledAll]) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    compile();
  }
}

/** Compile a schema into a function that fills defaults in place and throws a 422 listing the issues. */
export function compileValidator<T>(schema: TSchema): Validator<T> {
  made.add(schema);
  let check: AjvValidate | undefined;
  let checkAll: AjvValidate | undefined;
  const first = (): AjvValidate => {
    uncompiledFirst.delete(first);
    return (check ??= compileFirst({ schema }));
  };
  const all = (): AjvValidate => {
    uncompiledAll.delete(all);
    return (checkAll ??= compileAll({ schema }));
  };
  uncompiledFirst.add(first);
  uncompiledAll.add(all);
  return (data, loc = ['body']) => {
    check ??= first();
    if (check(data)) return data as T;
    if (!withinValues(data, FULL_REPORT_MAX_VALUES)) {
      const issues = toIssues(check.errors ?? [], loc, data);
      issues.push({
        loc,
        msg: `Only the first problem is listed: the body holds more than ${FULL_REPORT_MAX_VALUES.toLocaleString('en')} values, too many to check for every one. Fix it and send again.`,
        type: 'too_many_errors',
      });
      throw new ChunkdError('VALIDATION', issues);
    }
    checkAll ??= all();
    checkAll(data);
    throw new ChunkdError('VALIDATION', toIssues(checkAll.errors ?? check.errors ?? [], loc, data));
  };
}

/** Whether `data` holds at most `max` JSON values (counted without recursion, stopping past max). */
function withinValues(data: unknown, max: number): boolean {
  const stack: unknown[] = [data];
  let count = 0;
  while (stack.length) {
    const v = stack.pop();
    if (++count > max) return false;
    if (v !== null && typeof v === 'object') {
      for (const child of Array.isArray(v) ? v : Object.values(v)) {
        if (child !== null && typeof child === 'object') stack.push(child);
        else if (++count > max) return false;
      }
    }
  }
  return true;
}

/**
 * Ajv's errors as issues, in one pass: at most MAX_ISSUES, then one entry counting the rest.
 * A failed anyOf is explained by the one branch whose JSON kind matches the value, when there is
 * exactly one (a chunk object missing a field names that field); otherwise it is reported once,
 * as a whole: the branches' own errors then say nothing useful.
 */
function toIssues(errors: AjvError[], base: (string | number)[], root: unknown): Issue[] {
  // Each failed union, keyed by where it is in the data and in the schema: the errors under it are
  // found by looking their own paths' prefixes up (a scan of every union per error was quadratic).
  const unions = new Map<string, number | undefined>();
  for (const e of errors) if (e.keyword === 'anyOf') unions.set(unionKey(e.instancePath, e.schemaPath), branchOf(e, root));
  const seen = new Set<string>();
  const issues: Issue[] = [];
  let more = 0;
  for (const e of errors) {
    if (unions.size && hidden(e, unions)) continue;
    const key =
      e.keyword === 'required' || e.keyword === 'additionalProperties'
        ? `${e.instancePath}/${String(e.params.missingProperty ?? e.params.additionalProperty)}`
        : e.instancePath;
    if (seen.has(key)) continue;
    seen.add(key);
    if (issues.length < MAX_ISSUES) issues.push(toIssue(e, base, root));
    else more++;
  }
  if (more) {
    issues.push({
      loc: base,
      msg: `${more.toLocaleString('en')} more problem${more === 1 ? ' was' : 's were'} found and not listed (a response lists at most ${MAX_ISSUES}): fix the ones above and send again.`,
      type: 'too_many_errors',
    });
  }
  return issues;
}

const unionKey = (instancePath: string, schemaPath: string) => `${instancePath}\u0000${schemaPath}`;

/** Whether a failed union hides this error: it is the union itself, explained by a branch, or an error of a branch that does not explain it. */
function hidden(e: AjvError, unions: Map<string, number | undefined>): boolean {
  if (e.keyword === 'anyOf' && unions.get(unionKey(e.instancePath, e.schemaPath)) !== undefined) return true;
  // The unions above e: an `/anyOf/<branch>/` step of its schema path, at a prefix of its data path.
  for (let at = e.schemaPath.indexOf('/anyOf/'); at >= 0; at = e.schemaPath.indexOf('/anyOf/', at + 1)) {
    const unionPath = e.schemaPath.slice(0, at + 6);
    const branch = Number.parseInt(e.schemaPath.slice(at + 7), 10);
    for (let end = e.instancePath.length; end >= 0; end = end === 0 ? -1 : e.instancePath.lastIndexOf('/', end - 1)) {
      const key = unionKey(e.instancePath.slice(0, end), unionPath);
      if (unions.has(key)) {
        const explaining = unions.get(key);
        if (explaining === undefined || explaining !== branch) return true;
        break;
      }
    }
  }
  return false;
}

/** The index of the only branch of a failed anyOf whose JSON kind matches the value, if exactly one does. */
function branchOf(union: AjvError, root: unknown): number | undefined {
  const branches = (union.parentSchema?.anyOf ?? []) as Record<string, unknown>[];
  const kind = kindOf(valueAt(root, pathOf(union)));
  const matching = branches.flatMap((b, i) => (schemaKinds(b).includes(kind) ? [i] : []));
  // A constant branch ('auto') explains nothing of a wrong value of its kind: the union says what to send.
  return matching.length === 1 && !('const' in branches[matching[0]!]!) ? matching[0] : undefined;
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
  const shown = preview(valueAt(root, path), 80);
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

/**
 * The start of a value's JSON, at most about `max` characters: built piece by piece and stopped
 * once long enough, so a huge (or deeply nested) value costs no more than a small one.
 */
export function preview(value: unknown, max: number): string {
  let out = '';
  const put = (v: unknown): void => {
    if (out.length > max) return;
    if (v === undefined) out += 'undefined';
    else if (typeof v === 'string') out += JSON.stringify(v.length > max ? v.slice(0, max) : v);
    else if (v === null || typeof v !== 'object') out += typeof v === 'number' && !Number.isFinite(v) ? String(v) : JSON.stringify(v);
    else if (Array.isArray(v)) {
      out += '[';
      for (let i = 0; i < v.length && out.length <= max; i++) {
        if (i) out += ',';
        put(v[i]);
      }
      out += ']';
    } else {
      out += '{';
      let first = true;
      for (const k in v) {
        if (out.length > max) break;
        if (!Object.hasOwn(v, k)) continue;
        out += `${first ? '' : ','}${JSON.stringify(k.length > max ? k.slice(0, max) : k)}:`;
        first = false;
        put((v as Record<string, unknown>)[k]);
      }
      out += '}';
    }
  };
  put(value);
  return out.slice(0, max);
}
