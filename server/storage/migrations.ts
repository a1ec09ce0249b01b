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
];
