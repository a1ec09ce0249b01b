/**
 * The request body of a plugin's route, as a schema: its input field and the request fields of its
 * kind, beside its config, flat (the registry compiles it once per plugin).
 */
import Type, { type TObject, type TSchema } from '#typebox';
import { ChunkInput } from './chunk.js';
import { OffsetUnitField, ReturnTypeField, TextField } from './fields.js';
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
