/**
 * The stores section: bench/stores.ts (real chunks written and searched through each handshake's
 * plugin beside its raw engine). Full run: 10^5 and 10^6 chunks; --quick: 10^4. pgvector runs when
 * CHUNKD_BENCH_PG_URL names a real PostgreSQL server with the extension. Whenever the suite runs
 * in full, its section is also written into bench/results.md in place.
 */
import type { Check, CustomSuite, Section } from '../harness.js';
import { runStores, storesTable, STORES_TITLE, type StoreRowResult } from '../stores.js';
import { num, table, verdict } from '../table.js';
import { splice } from './quality.js';

const find = (rows: StoreRowResult[], size: number, what: string) => rows.find((r) => r.store === 'lancedb' && r.size === size && r.what.startsWith(what));

function checks(rows: StoreRowResult[], sizes: number[]): Check[] {
  const out: Check[] = [];
  for (const size of sizes) {
    const w = find(rows, size, 'write, chunks/s (vs raw add of Arrow');
    out.push({
      what: `LanceDB writes at ${size.toLocaleString('en')} real chunks ≥ 0.7× the raw engine's add (same run)`,
      measured: w?.ratio === undefined ? undefined : `${num(w.ratio)}×`,
      met: w?.ratio === undefined ? undefined : w.ratio >= 0.7,
    });
  }
  const big = Math.max(...sizes);
  const p50 = find(rows, big, 'vector search p50');
  const p99 = find(rows, big, 'vector search p99');
  const label = big.toLocaleString('en');
  out.push({
    what: `LanceDB vector search p50 ≤ 20 ms at ${label} chunks`,
    measured: p50?.chunkd === undefined ? undefined : `${num(p50.chunkd)} ms`,
    met: p50?.chunkd === undefined ? undefined : p50.chunkd <= 20,
  });
  out.push({
    what: `LanceDB vector search p99 ≤ 100 ms at ${label} chunks`,
    measured: p99?.chunkd === undefined ? undefined : `${num(p99.chunkd)} ms`,
    met: p99?.chunkd === undefined ? undefined : p99.chunkd <= 100,
  });
  out.push({
    what: `LanceDB recall@10 ≥ 0.95 against exact search at ${label} chunks`,
    measured: p50?.recall === undefined ? undefined : p50.recall.toFixed(3),
    met: p50?.recall === undefined ? undefined : p50.recall >= 0.95,
  });
  return out;
}

export const storesSuite: CustomSuite = {
  kind: 'custom',
  name: 'stores',
  title: STORES_TITLE,
  async run(options): Promise<Section> {
    const sizes = options.quick ? [10_000] : [100_000, 1_000_000];
    const { rows, about } = await runStores({ quick: options.quick, sizes, pgUrl: process.env.CHUNKD_BENCH_PG_URL });
    const section = storesSection(about, rows, sizes);
    if (!options.quick) splice(section);
    return section;
  },
};

/** The section: what was measured, the targets it judges (also in the Targets table of a full run), the rows. */
export function storesSection(about: string, rows: StoreRowResult[], sizes: number[]): Section {
  const c = checks(rows, sizes);
  const targets = table(
    ['target', 'measured', 'verdict'],
    c.map((x) => [x.what, x.measured ?? '—', verdict(x.met)]),
  );
  return { title: STORES_TITLE, body: `${about}\n\n${targets}\n\n${storesTable(rows)}`, checks: c };
}
