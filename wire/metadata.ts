/**
 * A user's metadata for a document (beside `text` or `file` in a request, on a job's document, in
 * an ingest sidecar): further keys of every stored chunk's `metadata`, returned with each hit and
 * filterable in a search. Declared once here: its shape, its bounds, and the keys chunkd writes
 * itself, which a user's metadata may not take.
 */
import Type from '#typebox';
import { ChunkdError, type Issue } from '../kernel/errors.js';
import { MAX_DOCUMENT_ID_LENGTH } from '../kernel/handshake.js';

/** Keys chunkd (or a chef or chunker it ships) writes into a chunk's metadata: a user key among them is refused by name. */
export const CHUNKD_METADATA_KEYS = [
  'document',
  'name',
  'headings',
  'blocks',
  'pages',
  'context',
  'split_by',
  'kind',
  'rows',
  'columns',
  'node_types',
  'start_line',
  'end_line',
  'has_error',
  'language',
  'embedding',
] as const;

/** Most keys, and most bytes of the JSON, one document's metadata may have. */
export const MAX_METADATA_KEYS = 32;
export const MAX_METADATA_BYTES = 4096;
/** Longest string value, and most items of a list value. */
const MAX_VALUE_CHARS = 1000;
const MAX_LIST_ITEMS = 100;

export const METADATA_KEY = '^[A-Za-z][A-Za-z0-9_-]{0,63}$';
const KEY = new RegExp(METADATA_KEY);

const Scalar = Type.Union([Type.String({ maxLength: MAX_VALUE_CHARS }), Type.Number(), Type.Boolean()]);

// Keys are checked by checkUserMetadata and checkFilterKeys, not by a key pattern here: the body validator drops keys a pattern refuses instead of naming them.
export const UserMetadata = Type.Record(Type.String(), Type.Union([Scalar, Type.Array(Scalar, { maxItems: MAX_LIST_ITEMS })]), {
  maxProperties: MAX_METADATA_KEYS,
  description: `The document's own metadata: further keys of every chunk's \`metadata\` (a hit returns them; a search filters on them). At most ${MAX_METADATA_KEYS} keys (letters, digits, _ and -, starting with a letter) and ${MAX_METADATA_BYTES} bytes of JSON; values are strings, numbers, booleans or lists of them; chunkd's own keys (${CHUNKD_METADATA_KEYS.join(', ')}) are refused.`,
  examples: [{ team: 'docs', lang: 'en' }],
});

const isScalar = (v: unknown) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/**
 * A user's metadata, checked: an object of at most MAX_METADATA_KEYS keys and MAX_METADATA_BYTES
 * bytes, scalar (or list of scalar) values, no key of chunkd's own. Every problem is a 422 issue at `loc`.
 */
export function checkUserMetadata(value: unknown, loc: (string | number)[]): Record<string, unknown> {
  const fail = (issues: Issue[]): never => {
    throw new ChunkdError('VALIDATION', issues);
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    fail([{ loc, msg: 'metadata must be an object of keys and values, e.g. {"team": "docs", "lang": "en"}.', type: 'model_type' }]);
  const entries = Object.entries(value as Record<string, unknown>);
  const issues: Issue[] = [];
  if (entries.length > MAX_METADATA_KEYS)
    issues.push({ loc, msg: `metadata has ${entries.length} keys; at most ${MAX_METADATA_KEYS} are kept: send fewer.`, type: 'too_long' });
  for (const [key, v] of entries) {
    const at = [...loc, key];
    if ((CHUNKD_METADATA_KEYS as readonly string[]).includes(key))
      issues.push({
        loc: at,
        msg: `'${key}' is a key chunkd writes itself (${CHUNKD_METADATA_KEYS.join(', ')}): name yours otherwise, e.g. 'my_${key}'.`,
        type: 'reserved_key',
      });
    else if (!KEY.test(key))
      issues.push({
        loc: at,
        msg: `'${key}' is not a metadata key: letters, digits, _ and -, starting with a letter (at most 64).`,
        type: 'string_pattern_mismatch',
      });
    const values = Array.isArray(v) ? v : [v];
    if (Array.isArray(v) && v.length > MAX_LIST_ITEMS) issues.push({ loc: at, msg: `a list value holds at most ${MAX_LIST_ITEMS} items.`, type: 'too_long' });
    else if (!values.every(isScalar))
      issues.push({ loc: at, msg: 'a metadata value is a string, a number, a boolean, or a list of them (no object, no null).', type: 'value_error' });
    else if (values.some((x) => typeof x === 'string' && x.length > MAX_VALUE_CHARS))
      issues.push({ loc: at, msg: `a string value has at most ${MAX_VALUE_CHARS} characters.`, type: 'too_long' });
  }
  if (!issues.length && Buffer.byteLength(JSON.stringify(value)) > MAX_METADATA_BYTES)
    issues.push({
      loc,
      msg: `metadata is ${Buffer.byteLength(JSON.stringify(value))} bytes of JSON; at most ${MAX_METADATA_BYTES} are kept: send less.`,
      type: 'too_long',
    });
  if (issues.length) fail(issues);
  return value as Record<string, unknown>;
}

const FilterScalar = Type.Union([Type.String({ maxLength: MAX_VALUE_CHARS }), Type.Number(), Type.Boolean()]);

/** A search's filter: one document, and metadata fields each equal to a value or in a list; every field must hold. */
export const SearchFilter = Type.Object(
  {
    document: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_DOCUMENT_ID_LENGTH, description: 'Only chunks of this document.' })),
    metadata: Type.Optional(
      Type.Record(
        Type.String({ pattern: METADATA_KEY }),
        Type.Union([FilterScalar, Type.Object({ in: Type.Array(FilterScalar, { minItems: 1, maxItems: MAX_LIST_ITEMS }) }, { additionalProperties: false })]),
        {
          maxProperties: MAX_METADATA_KEYS,
          description:
            "Only chunks whose metadata field equals the value, or one of `in`; every field must hold. Keys are chunkd's (name, …) or the documents' own metadata.",
          examples: [{ team: 'docs', lang: { in: ['en', 'fr'] } }],
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'Only chunks that hold every condition.' },
);

/** A filter's metadata keys, each a metadata key (letters, digits, _ and -): anything else is a 422 naming it. */
export function checkFilterKeys(filter: unknown, loc: (string | number)[]): void {
  const metadata = (filter as { metadata?: unknown } | undefined)?.metadata;
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return;
  const bad = Object.keys(metadata).filter((k) => !KEY.test(k));
  if (bad.length)
    throw new ChunkdError(
      'VALIDATION',
      bad.map((k) => ({
        loc: [...loc, 'metadata', k],
        msg: `'${k}' is not a metadata key: letters, digits, _ and -, starting with a letter (at most 64).`,
        type: 'string_pattern_mismatch',
      })),
    );
}
