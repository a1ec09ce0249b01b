/**
 * `node --import tsx bench/stores/lance-repeats.ts [--sizes 1000,10000,100000]`: what counting a
 * repeated query word costs the LanceDB handshake's text search (plugins/lancedb/text-query.ts), by
 * collection size. Real chunks (bench/stores/corpus.ts) are written through the plugin and settled
 * (its full-text index made), then the benchmark's questions that repeat a word (CHUNKD_QUALITY_DATA)
 * are asked of the table twice over: as they are (a match query, each word once) and as the boolean
 * query of boosted words the plugin asks up to `exact_text_rows` rows. p50 and p99 of a query, in
 * ms, a markdown table on stdout. Never part of `npm test`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connect, type Table } from '@lancedb/lancedb';
import { discover } from '../../kernel/discovery.js';
import type { HandshakeImpl } from '../../kernel/handshake.js';
import type { LanceStoreUpkeep } from '../../plugins/lancedb/impl.js';
import { countedQuery } from '../../plugins/lancedb/text-query.js';
import { FTS_COLUMN } from '../../plugins/lancedb/upkeep.js';
import { corpus, queries } from './corpus.js';
import { timeSearches } from './measure.js';
import { docBatches } from './rows.js';
import { num, table as mdTable } from '../table.js';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '1000,3000,10000,30000,100000' } } });
const sizes = values.sizes.split(',').map(Number);
const K = 5;
const log = (l: string) => process.stderr.write(`${l}\n`);

const info = await corpus(Math.max(...sizes));
const { queries: all } = await queries();
const repeating = all.filter((q) => countedQuery(q.text, FTS_COLUMN) !== undefined);
log(`${repeating.length} of ${all.length} questions repeat a word`);
const plugin = (await discover()).get('handshake', 'lancedb') as unknown as { connect(c: unknown): Promise<HandshakeImpl & LanceStoreUpkeep> };

const rows: string[][] = [];
for (const size of sizes) {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-bench-repeats-'));
  try {
    const store = await plugin.connect({ path: join(dir, 'db') });
    for (const b of docBatches(info, size, 5000)) await store.writeMany!('bench', b.docs, { model: info.model, dimension: info.dimension });
    await store.settle!('bench');
    await store.close();
    const table: Table = await (await connect(join(dir, 'db'))).openTable('bench');
    const ids = async (q: ReturnType<Table['search']>) => (await q.limit(K).toArray()).map((r) => r.id as string);
    const plain = await timeSearches(repeating, (q) => ids(table.search(q.text, 'fts', FTS_COLUMN)));
    const counted = await timeSearches(repeating, (q) => ids(table.search(countedQuery(q.text, FTS_COLUMN)!, 'fts')));
    rows.push([size.toLocaleString('en'), `${num(plain.p50)} / ${num(plain.p99)}`, `${num(counted.p50)} / ${num(counted.p99)}`, num(counted.p50 / plain.p50)]);
    log(`${size}: as they are ${num(plain.p50)} ms, counted ${num(counted.p50)} ms (p50)`);
    table.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(mdTable(['rows', 'as they are: p50 / p99, ms', 'repeats counted: p50 / p99, ms', 'p50 ratio'], rows));
