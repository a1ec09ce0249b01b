import Type, { type TObject, type TSchema } from 'typebox';
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

/** Request fields that are not plugin config, per kind. */
export function requestFields(manifest: AnyManifest): Record<string, TSchema> {
  return manifest.kind === 'chunker' ? CHUNKER_REQUEST_FIELDS : { chunks: ChunksField };
}

/** The request body schema of a plugin's route: its input field plus its config, flat. */
export function bodySchema(manifest: AnyManifest): TObject {
  const input = KINDS[manifest.kind].input;
  const props = { ...requestFields(manifest), ...manifest.config.properties };
  return Type.Object(props, { required: [input], additionalProperties: true, examples: manifest.examples }) as TObject;
}

/** Move aliased keys to their canonical name (the canonical key wins when both are sent). */
export function applyAliases(body: Record<string, unknown>, known: ReadonlySet<string>): void {
  for (const [alias, canonical] of Object.entries(ALIASES)) {
    if (alias in body && known.has(canonical)) {
      if (!(canonical in body)) body[canonical] = body[alias];
      delete body[alias];
    }
  }
}

/** Keys the schema does not know: ignored, and reported so a typo is visible. */
export function unknownKeys(body: Record<string, unknown>, known: ReadonlySet<string>): string[] {
  return Object.keys(body).filter((k) => !known.has(k) && !(k in ALIASES));
}
