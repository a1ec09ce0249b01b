import Type, { type TObject, type TSchema } from 'typebox';
import { ChunkInput } from './chunk.js';
import { validationError } from './errors.js';
import { OffsetUnitField, ReturnTypeField, TextField } from './fields.js';
import { checkJsonShape } from './json-shape.js';
import { KINDS, type AnyManifest } from './plugin.js';

/** Keys clients send under another name; the value moves to the canonical key before validation. */
export const ALIASES: Record<string, string> = { tokenizer_or_token_counter: 'tokenizer' };

export const ChunksField = Type.Array(Type.Union([ChunkInput, Type.Array(ChunkInput)]), {
  description: "A chunker's output, unchanged: a list of chunks, or one list per text.",
});

/** A chunker request's fields besides the plugin config (a pipeline's execute takes them too). */
export const CHUNKER_REQUEST_FIELDS = { text: TextField, offset_unit: OffsetUnitField, return_type: ReturnTypeField };

/** A chef request's fields besides the chef's config. */
export const CHEF_REQUEST_FIELDS = {
  text: Type.String({ description: 'The document, as text (or send `file` with an uploaded file instead).', examples: ['# Title\n\nSome text.'] }),
  offset_unit: OffsetUnitField,
};

/** Request fields that are not plugin config, per kind. */
export function requestFields(manifest: AnyManifest): Record<string, TSchema> {
  if (manifest.kind === 'chef') return CHEF_REQUEST_FIELDS;
  if (manifest.kind === 'handshake') return {}; // no request body: its config is a connection, set by the operator
  return manifest.kind === 'chunker' ? CHUNKER_REQUEST_FIELDS : { chunks: ChunksField };
}

/** The request body schema of a plugin's route: its input field plus its config, flat. */
export function bodySchema(manifest: AnyManifest): TObject {
  const input = KINDS[manifest.kind].input;
  const props = { ...requestFields(manifest), ...manifest.config.properties };
  return Type.Object(props, { required: input === null ? [] : [input], additionalProperties: true, examples: manifest.examples }) as TObject;
}

/** The aliases of a plugin's body: the shared ones and the manifest's own, never shadowing a field the body has. */
export function aliasesOf(manifest: AnyManifest, known: ReadonlySet<string>): Record<string, string> {
  const all = { ...ALIASES, ...manifest.aliases };
  return Object.fromEntries(Object.entries(all).filter(([alias, canonical]) => known.has(canonical) && !known.has(alias)));
}

/** Move aliased keys to their canonical name (the canonical key wins when both are sent). */
export function applyAliases(body: Record<string, unknown>, known: ReadonlySet<string>, aliases: Record<string, string> = ALIASES): void {
  for (const alias in aliases) {
    const canonical = aliases[alias]!;
    if (Object.hasOwn(body, alias) && known.has(canonical)) {
      if (!Object.hasOwn(body, canonical)) body[canonical] = body[alias];
      delete body[alias];
    }
  }
}

/** Keys the schema does not know: ignored, and reported so a typo is visible. */
export function unknownKeys(body: Record<string, unknown>, known: ReadonlySet<string>, aliases: Record<string, string> = ALIASES): string[] {
  return Object.keys(body).filter((k) => !known.has(k) && !Object.hasOwn(aliases, k));
}

/**
 * A request body as every route with a JSON object body reads it, before its schema is checked:
 * a JSON object of bounded nesting and finite numbers, aliased keys moved to their canonical name,
 * and the keys the schema does not know (ignored, to be named in IGNORED_KEYS_HEADER).
 */
export function readObjectBody(
  raw: unknown,
  known: ReadonlySet<string>,
  example = '{"text": "..."}',
  aliases: Record<string, string> = ALIASES,
): { body: Record<string, unknown>; ignored: string[] } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw validationError(['body'], `The request body must be a JSON object, e.g. ${example}.`, 'model_attributes_type');
  }
  const body = raw as Record<string, unknown>;
  checkJsonShape(body);
  applyAliases(body, known, aliases);
  return { body, ignored: unknownKeys(body, known, aliases) };
}

/** The response header naming a body's ignored keys. */
export const IGNORED_KEYS_HEADER = 'X-Chunkd-Ignored-Keys';
/** Longest IGNORED_KEYS_HEADER value: a body may hold any number of keys of any length. */
export const IGNORED_KEYS_HEADER_MAX = 1024;

/**
 * Ignored keys as a header value: keys are client text, and a header carries only visible ASCII
 * (a CR, LF or NUL would split or break the response, a non-Latin-1 character is refused by
 * Node). Every other byte of a key's UTF-8, and `%` and `,` (the escape and the separator), is
 * percent-encoded; past IGNORED_KEYS_HEADER_MAX characters the rest are counted, not listed.
 */
export function ignoredKeysHeader(keys: readonly string[]): string {
  const room = IGNORED_KEYS_HEADER_MAX - 24; // what the note counting the rest takes
  let out = '';
  for (const [i, key] of keys.entries()) {
    const item = (i ? ', ' : '') + headerSafe(key);
    if (out.length + item.length > room) return `${out}${i ? ', ' : ''}... (${keys.length - i} more)`;
    out += item;
  }
  return out;
}

const UTF8 = new TextEncoder();
const headerSafe = (key: string) =>
  key.replace(/[^\x21-\x24\x26-\x2b\x2d-\x7e]+/g, (run) => Array.from(UTF8.encode(run), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
