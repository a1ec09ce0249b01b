/**
 * A job document's name and user metadata as the job stores them beside its text (one JSON
 * column): what its write step puts on every row of the document (service/stores/stores.ts).
 */

/** The stored JSON of a document's name and metadata; undefined when it has neither. */
export function storedMeta(name: string | undefined, metadata: Record<string, unknown> | undefined): string | undefined {
  const meta = { ...metadata, ...(name === undefined ? {} : { name }) };
  return Object.keys(meta).length ? JSON.stringify(meta) : undefined;
}

/** The stored JSON back as the keys its rows carry. */
export const documentMeta = (stored: string | null | undefined): Record<string, unknown> | undefined =>
  stored ? (JSON.parse(stored) as Record<string, unknown>) : undefined;
