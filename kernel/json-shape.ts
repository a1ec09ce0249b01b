import { validationError } from './errors.js';

/** Deepest nesting of arrays and objects a request body may have (the body object itself is level 1). */
export const MAX_JSON_DEPTH = 64;

interface Frame {
  value: object;
  depth: number;
  up?: Frame;
  key?: string | number;
}

/**
 * Refuse (422) a parsed JSON body nested deeper than MAX_JSON_DEPTH or holding a number JSON.parse
 * turned into ±Infinity (a literal such as 1e400). Walked with an explicit stack, before anything
 * recursive (validation, JSON.stringify, structuredClone) sees the value: those overflow the call
 * stack on deep values, and Ajv takes Infinity for an integer.
 */
export function checkJsonShape(root: unknown, base: (string | number)[] = ['body']): void {
  if (root === null || typeof root !== 'object') {
    if (typeof root === 'number' && !Number.isFinite(root)) throw notFinite(base);
    return;
  }
  const stack: Frame[] = [{ value: root, depth: 1 }];
  while (stack.length) {
    const frame = stack.pop()!;
    const visit = (child: unknown, key: string | number) => {
      if (typeof child === 'number') {
        if (!Number.isFinite(child)) throw notFinite([...base, ...pathOf(frame), key]);
      } else if (child !== null && typeof child === 'object') {
        if (frame.depth >= MAX_JSON_DEPTH) throw tooDeep([...base, ...pathOf(frame), key]);
        stack.push({ value: child, depth: frame.depth + 1, up: frame, key });
      }
    };
    const v = frame.value;
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) visit(v[i], i);
    else for (const key of Object.keys(v)) visit((v as Record<string, unknown>)[key], key);
  }
}

/** Issue types checkJsonShape reports: the body was refused before its schema was checked. */
export const SHAPE_ISSUES: ReadonlySet<string> = new Set(['too_deep', 'finite_number']);

function pathOf(frame: Frame): (string | number)[] {
  const path: (string | number)[] = [];
  for (let f: Frame | undefined = frame; f?.up; f = f.up) path.push(f.key!);
  return path.reverse();
}

const tooDeep = (loc: (string | number)[]) =>
  validationError(loc.slice(0, 8), `The body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep (the limit): flatten it.`, 'too_deep');

const notFinite = (loc: (string | number)[]) =>
  validationError(
    loc,
    `${String(loc[loc.length - 1])} is a number out of range (a JSON number beyond ±1.8e308, such as 1e400, overflows to infinity): send a finite number.`,
    'finite_number',
  );
