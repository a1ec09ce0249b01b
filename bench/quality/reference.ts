/**
 * The reference rows shipped with the benchmark data (reference-results.md beside the corpora):
 * Markdown tables of `mean ± std` cells, read by heading.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ReferenceTable {
  header: string[];
  rows: Map<string, string[]>;
}

export interface Reference {
  /** Chunks placed by text search (the benchmark's way). */
  text?: ReferenceTable;
  /** chunkd's chunks at their exact offsets. */
  offsets?: ReferenceTable;
}

export function readReference(dataDir: string): Reference {
  const file = join(dataDir, 'reference-results.md');
  if (!existsSync(file)) return {};
  const lines = readFileSync(file, 'utf8').split('\n');
  return { text: tableAfter(lines, /placed by text/i), offsets: tableAfter(lines, /exact offsets/i) };
}

/** The first table after the first heading matching `heading`. */
function tableAfter(lines: string[], heading: RegExp): ReferenceTable | undefined {
  const at = lines.findIndex((l) => l.startsWith('#') && heading.test(l));
  if (at < 0) return undefined;
  const start = lines.findIndex((l, i) => i > at && l.startsWith('|'));
  if (start < 0) return undefined;
  const cells = (l: string) =>
    l
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
  const header = cells(lines[start]!);
  const rows = new Map<string, string[]>();
  for (let i = start + 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
    const [name, ...rest] = cells(lines[i]!);
    rows.set(name!, rest);
  }
  return { header, rows };
}
