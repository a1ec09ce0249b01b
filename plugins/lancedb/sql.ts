/** A string as a DataFusion SQL literal (LanceDB's filter language): quotes doubled, nothing else special. */
export const literal = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/** The filter keeping one document's rows. */
export const documentIs = (document: string): string => `document = ${literal(document)}`;
