/**
 * `--FIELD VALUE` flags of `chunkd chunk`, typed by the plugin's own schema: `--chunk-size 64` is
 * the number 64, `--include-nodes` alone is true, `--delimiters '.,!'` a list. The result is then
 * checked by the plugin's schema, as a request body is; this only turns words into JSON values.
 */
import { ChunkdError } from '../kernel/errors.js';

type Schema = Record<string, unknown>;

/** A field flag's name as the schema spells it: `--chunk-size` and `--chunk_size` are `chunk_size`. */
export const fieldName = (flag: string) => flag.replace(/-/g, '_');
export const flagName = (field: string) => `--${field.replace(/_/g, '-')}`;

/** Whether the flag may stand alone (a boolean field): `--include-nodes` then means true. */
export const isBooleanField = (schema: Schema | undefined): boolean => schema?.type === 'boolean';

/** The JSON value of `raw` for a field of this schema; a word that cannot be one is a bad-input error naming the flag. */
export function typedValue(schema: Schema | undefined, raw: string, flag: string): unknown {
  const value = convert(schema ?? {}, raw);
  if (value === INVALID) throw new ChunkdError('BAD_REQUEST', `${flag} takes ${describe(schema ?? {})}; got '${raw}'.`);
  return value;
}

const INVALID = Symbol('invalid');

function convert(schema: Schema, raw: string): unknown {
  if (Array.isArray(schema.anyOf)) {
    // Strings last: "64" for `integer | string` is the number.
    const options = [...(schema.anyOf as Schema[])].sort((a, b) => Number(a.type === 'string') - Number(b.type === 'string'));
    for (const option of options) {
      const v = convert(option, raw);
      if (v !== INVALID) return v;
    }
    return INVALID;
  }
  if ('const' in schema) return typeof schema.const === 'string' ? raw : json(raw);
  if (Array.isArray(schema.enum)) return schema.enum.every((e) => typeof e === 'string') ? raw : json(raw);
  switch (schema.type) {
    case 'integer':
    case 'number': {
      const n = raw.trim() === '' ? NaN : Number(raw);
      return Number.isFinite(n) && (schema.type === 'number' || Number.isInteger(n)) ? n : INVALID;
    }
    case 'boolean':
      if (/^(true|yes|on|1)$/i.test(raw)) return true;
      if (/^(false|no|off|0)$/i.test(raw)) return false;
      return INVALID;
    case 'null':
      return raw === 'null' ? null : INVALID;
    case 'array': {
      if (raw.trimStart().startsWith('[')) {
        const v = json(raw);
        return Array.isArray(v) ? v : INVALID;
      }
      // A comma-separated list, each item typed by the item schema; a value of commas only
      // (`--delim ','`) is that one item, not a list of empty ones.
      const parts = raw.split(',');
      const items = raw === '' ? [] : (parts.every((p) => p === '') ? [raw] : parts).map((item) => convert((schema.items as Schema) ?? {}, item));
      return items.includes(INVALID) ? INVALID : items;
    }
    case 'object': {
      const v = json(raw);
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : INVALID;
    }
    case 'string':
      return raw;
    default: {
      const v = json(raw);
      return v === INVALID ? raw : v;
    }
  }
}

function json(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return INVALID;
  }
}

function describe(schema: Schema): string {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Schema[]).map(describe).join(' or ');
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.join(', ')}`;
  switch (schema.type) {
    case 'integer':
      return 'a whole number';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'a comma-separated list or a JSON list';
    case 'object':
      return 'a JSON object';
    default:
      return 'a value';
  }
}
