/** A string as a DataFusion SQL literal (LanceDB's filter language): quotes doubled, nothing else special. */
export const literal = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/** The filter keeping one document's rows. */
export const documentIs = (document: string): string => `document = ${literal(document)}`;

/** The filter keeping the rows of any of these documents (one IN list: a scalar index answers it, an OR chain it scans). */
export const documentIn = (documents: readonly string[]): string => `document IN (${documents.map(literal).join(', ')})`;
