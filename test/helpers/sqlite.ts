import { join } from 'node:path';
import { open } from 'sqlite';
import sqlite3 from 'sqlite3';
import { DATABASE_FILE } from '../../service/storage/service.js';

/** Open a data directory's database on a connection of its own, run `PRAGMA integrity_check`, and list the pipelines (names, and descriptions by name). */
export async function inspectDataDir(dataDir: string): Promise<{ integrity: string; names: string[]; descriptions: Map<string, string | null> }> {
  const db = await open({ filename: join(dataDir, DATABASE_FILE), driver: sqlite3.Database });
  try {
    const rows = await db.all<{ integrity_check: string }[]>('PRAGMA integrity_check');
    const stored = await db.all<{ name: string; description: string | null }[]>('SELECT name, description FROM pipelines');
    return {
      integrity: rows.map((r) => r.integrity_check).join('; '),
      names: stored.map((r) => r.name),
      descriptions: new Map(stored.map((r) => [r.name, r.description])),
    };
  } finally {
    await db.close();
  }
}
