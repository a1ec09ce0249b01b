/**
 * The schema, as numbered steps. A database records the last step applied (SQLite's
 * `user_version`); opening it applies the ones after, each in its own transaction. Steps are only
 * ever appended: an applied step is never edited.
 */
export interface Migration {
  version: number;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    // seq orders the list (newest first) even when two pipelines share a created_at millisecond.
    sql: `
      CREATE TABLE pipelines (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        description TEXT,
        steps TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE UNIQUE INDEX pipelines_name ON pipelines (name);
    `,
  },
  {
    version: 2,
    // Each row's stored size (UTF-8 bytes of steps, name and description; kept by the store on
    // every write), and an index holding it beside seq: a list page finds where its byte budget
    // ends from the index alone, without reading the rows it will not return.
    sql: `
      ALTER TABLE pipelines ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
      UPDATE pipelines SET size = length(CAST(steps AS BLOB)) + length(CAST(name AS BLOB)) + ifnull(length(CAST(description AS BLOB)), 0);
      CREATE INDEX pipelines_page ON pipelines (seq, size);
    `,
  },
];
