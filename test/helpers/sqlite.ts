import { join } from 'node:path';
import { open } from 'sqlite';
import sqlite3 from 'sqlite3';
import { DATABASE_FILE } from '../../service/storage/service.js';

/** Open a data directory's database on a connection of its own, run `PRAGMA integrity_check`, and list the pipeline names. */
export async function inspectDataDir(dataDir: string): Promise<{ integrity: string; names: string[] }> {
  const db = await open({ filename: join(dataDir, DATABASE_FILE), driver: sqlite3.Database });
  try {
    const rows = await db.all<{ integrity_check: string }[]>('PRAGMA integrity_check');
    const names = (await db.all<{ name: string }[]>('SELECT name FROM pipelines')).map((r) => r.name);
    return { integrity: rows.map((r) => r.integrity_check).join('; '), names };
  } finally {
    await db.close();
  }
}
