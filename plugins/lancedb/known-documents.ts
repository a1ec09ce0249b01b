import type { Table } from '@lancedb/lancedb';
import { fnv1a } from '../../kernel/index.js';

/**
 * Rows this process has written to a table since its last upkeep past which a write stops asking
 * the table whether it holds the batch's documents, and reads every document of the table once
 * instead. Such rows are not in the document index yet, so LanceDB scans them on every question:
 * measured on the stores bench, ~200 ms a batch of 5,000 rows at 10^6 rows, more than the append
 * itself. Below it, the question is cheap (the indexed rows are looked up).
 */
export const SCAN_AFTER_ROWS = 20_000;

/** What this process knows of a table: at `version`, every document it holds has its hash in `hashes`. */
interface Known {
  version: number;
  hashes: Set<number>;
}

interface State {
  known?: Known;
  /** Rows this process committed since the table's last upkeep. */
  rows: number;
  /** Read whole since the last upkeep: a table another process keeps changing is read at most once per upkeep. */
  scanned: boolean;
}

/** 31 bits: small integers, which a Set keeps without a heap number each (~1 M documents in ~20 MB). */
const hashOf = (document: string): number => fnv1a(document) >>> 1;

/**
 * Which documents a table cannot hold, known without a query: the decision between appending a
 * batch (none of its documents stored) and merging it (a replacement). The knowledge holds only
 * while the table's latest version is the one this process's own commits led to; any other
 * process's commit, an upkeep or a failure ends it, and the table is asked again. A hash may
 * collide or name a deleted document: then the table is asked, so the answer "absent" is exact.
 */
export class KnownDocuments {
  private readonly tables = new Map<string, State>();

  private state(name: string): State {
    let s = this.tables.get(name);
    if (!s) this.tables.set(name, (s = { rows: 0, scanned: false }));
    return s;
  }

  /** True when the table holds none of `documents`; false when it may (ask the table). */
  async absent(name: string, table: Table, documents: readonly string[]): Promise<boolean> {
    const s = this.state(name);
    if (s.known && s.known.version !== (await table.version())) s.known = undefined;
    if (!s.known && !s.scanned && s.rows >= SCAN_AFTER_ROWS) {
      s.scanned = true;
      s.known = await scan(table);
    }
    const hashes = s.known?.hashes;
    return !!hashes && documents.every((d) => !hashes.has(hashOf(d)));
  }

  /**
   * After this process's commit at `version`, which wrote `rows` rows of `documents` (none for a
   * delete): still known when it directly follows the known version, so no other commit came between.
   */
  committed(name: string, version: number, documents: readonly string[], rows: number): void {
    const s = this.state(name);
    s.rows += rows;
    if (!s.known) return;
    if (version !== s.known.version + 1) {
      s.known = undefined;
      return;
    }
    s.known.version = version;
    for (const d of documents) s.known.hashes.add(hashOf(d));
  }

  /** The table's upkeep committed (its rows are indexed again), or it was made or dropped: asked again from now. */
  forget(name: string): void {
    this.tables.delete(name);
  }
}

/** Every document of the table, read in batches; undefined when another commit came while it was read. */
async function scan(table: Table): Promise<Known | undefined> {
  const version = await table.version();
  const hashes = new Set<number>();
  for await (const batch of table.query().select(['document'])) {
    const column = batch.getChild('document')!;
    for (let i = 0; i < batch.numRows; i++) hashes.add(hashOf(column.get(i) as string));
  }
  return (await table.version()) === version ? { version, hashes } : undefined;
}
