/** The table chunker on a document of markdown and HTML tables between paragraphs, beside the token chunker on the same text as a baseline (no peer chunks tables offline). */
import { ourChunker } from '../chunkd.js';
import { floor, ours, size } from '../cases.js';
import { prose } from '../corpora.js';
import type { Options, ThroughputSuite } from '../harness.js';
import { fmtSize } from '../table.js';

const CHUNK = 512;
const BPE = 'cl100k_base';

/** Paragraphs of prose, each followed by a table of 40 rows × 4 columns cut from the prose's words; every third table is HTML. */
function tableDoc(bytes: number): string {
  const words = prose(Math.max(bytes, 200_000)).split(/\s+/).filter(Boolean);
  const parts: string[] = [];
  let size = 0;
  let w = 0;
  const word = () => words[w++ % words.length]!.replace(/[|<>&]/g, '');
  for (let t = 0; size < bytes; t++) {
    const para = prose(600, t * 7);
    const rows = Array.from({ length: 40 }, () => [word(), word(), word(), `${w}`]);
    const table =
      t % 3 === 2
        ? `<table>\n<thead><tr><th>a</th><th>b</th><th>c</th><th>n</th></tr></thead>\n<tbody>\n${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>\n`).join('')}</tbody>\n</table>\n`
        : `| a | b | c | n |\n|---|---|---|--:|\n${rows.map((r) => `| ${r.join(' | ')} |\n`).join('')}`;
    parts.push(para, '\n\n', table, '\n');
    size += Buffer.byteLength(para) + Buffer.byteLength(table) + 3;
  }
  return parts.join('');
}

const tokenBaseline = (config: Record<string, unknown>) => async () => {
  const run = await ourChunker('token', config);
  return (t: string) => run([t]);
};

export const tableSuite: ThroughputSuite = {
  kind: 'throughput',
  name: 'table',
  title: 'Table chunker',
  about: (o) =>
    `${fmtSize(size(o, 1e6))} of paragraphs of prose, each followed by a table of 40 rows (two of three markdown, one HTML), chunk_size ${CHUNK}. No peer chunks markdown and HTML tables offline (Chonkie's TableChunker is Python and takes one table per call), so the baseline is chunkd's token chunker on the same text with the same tokenizer: the cost of finding tables and packing whole rows, relative to the simplest chunker.`,
  cases(o: Options) {
    const text = () => [tableDoc(size(o, 1e6))];
    const job = `character, ${CHUNK}`;
    const bpeJob = `${BPE}, ${CHUNK}`;
    return [
      ours(o, 'ours-char', job, 'table', { chunk_size: CHUNK }, text),
      floor('token-char', 'chunkd token (baseline)', job, text, tokenBaseline({ chunk_size: CHUNK })),
      ours(o, 'ours-bpe', bpeJob, 'table', { tokenizer: BPE, chunk_size: CHUNK }, text),
      floor('token-bpe', 'chunkd token (baseline)', bpeJob, text, tokenBaseline({ tokenizer: BPE, chunk_size: CHUNK })),
    ];
  },
  targets: [],
};
