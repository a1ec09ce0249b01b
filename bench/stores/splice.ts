/**
 * `node --import tsx bench/stores/splice.ts RUN.md [RUN2.md …]`: put the stores section of a run of
 * bench/stores.ts (its markdown output: the paragraph, then the rows) into bench/results.md, as
 * `npm run bench -- stores` does, for a run made on its own (the 10^6 rows take most of an hour
 * here). The rows of several runs are joined in order (e.g. LanceDB in one run, pgvector in another).
 */
import { readFileSync } from 'node:fs';
import type { StoreRowResult } from '../stores.js';
import { splice } from '../suites/quality.js';
import { storesSection } from '../suites/stores.js';

const unnum = (s: string) => (s === '—' || s === '' ? undefined : Number(s.replace(/[,×]/g, '')));
const rows: StoreRowResult[] = [];
let about = '';
for (const file of process.argv.slice(2)) {
  const md = readFileSync(file, 'utf8').trim();
  const [paragraph, ...rest] = md.split('\n\n');
  about ||= paragraph!;
  for (const line of rest.join('\n\n').split('\n').slice(2)) {
    const c = line.slice(2, -2).split(' | ');
    rows.push({
      store: c[0]!,
      size: Number(c[1]!.replace(/,/g, '')),
      what: c[2]!,
      chunkd: unnum(c[3]!),
      raw: unnum(c[4]!),
      unit: '',
      ratio: unnum(c[5]!),
      recall: unnum(c[6]!),
      note: c[7] || undefined,
      load: c[8]!,
    });
  }
}
const sizes = [...new Set(rows.filter((r) => r.store === 'lancedb').map((r) => r.size))];
const section = storesSection(about, rows, sizes);
splice(section);
console.log(section.body);
