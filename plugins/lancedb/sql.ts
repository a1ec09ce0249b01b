/** A string as a DataFusion SQL literal (LanceDB's filter language): quotes doubled, nothing else special. */
export const literal = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/** The filter keeping one document's rows. */
export const documentIs = (document: string): string => `document = ${literal(document)}`;

/** The filter keeping the rows of any of these documents (one IN list: a scalar index answers it, an OR chain it scans). */
export const documentIn = (documents: readonly string[]): string => `document IN (${documents.map(literal).join(', ')})`;

/** A string as a LIKE pattern's literal part: its wildcards and the escape character escaped (the filter says ESCAPE '\'). */
const likeLiteral = (value: string): string => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The filter keeping rows whose metadata (the JSON text this plugin writes) has a top-level field
 * `key` equal to one of `values`: a match of the field as JSON.stringify writes it (`"key":value`,
 * a number or boolean followed by `,` or `}`), every character of the value escaped for LIKE and
 * for the SQL literal. A quote inside a JSON string is written `\"`, so a value's text never meets
 * the pattern elsewhere; a nested object holding the same key may, which the stores service's
 * check of every hit (kernel/store-filter.ts) removes.
 */
export function metadataIn(key: string, values: readonly (string | number | boolean)[]): string {
  const like = (pattern: string) => `metadata LIKE ${literal(`%${likeLiteral(pattern)}%`)} ESCAPE '\\'`;
  const field = JSON.stringify(key);
  const terms = values.flatMap((v) => {
    const json = `${field}:${JSON.stringify(v)}`;
    return typeof v === 'string' ? [like(json)] : [like(`${json},`), like(`${json}}`)];
  });
  return `(${terms.join(' OR ')})`;
}
