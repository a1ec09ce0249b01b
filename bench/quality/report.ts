/** The quality section of bench/results.md: chunkd's rows beside the reference rows, and the checks they answer. */
import type { Check, Section } from '../harness.js';
import { pm } from '../../service/evaluation/table.js';
import { CONSISTENCY } from './candidates.js';
import { K, type QualityRow, type Scores } from './measure.js';
import type { Reference, ReferenceTable } from './reference.js';

export const CANDIDATES_NOTE = 'Configurations are listed in bench/quality/candidates.ts (EXTRA holds the ones made to lead the benchmark).';

const HEAD_TEXT = [
  'chunker',
  'chunks',
  'mean tok (cl100k)',
  'BM25 recall',
  'BM25 precision',
  'BM25 IoU',
  'built-in model recall',
  'built-in model precision',
  'built-in model IoU',
  'Precision Ω',
];
const HEAD_OFFSETS = ['chunker', 'chunks whose start the search moves', ...HEAD_TEXT.slice(3)];

const figures = (bm25: Scores, model: Scores) => [
  pm(bm25.recall, 1),
  pm(bm25.precision, 2),
  pm(bm25.iou, 2),
  pm(model.recall, 1),
  pm(model.precision, 2),
  pm(model.iou, 2),
  pm(bm25.precision_omega, 1),
];

/** Cells after the name, as the reference tables have them. */
const textCells = (r: QualityRow) => [String(r.chunks), String(Math.round(r.meanTokens)), ...figures(r.scores.text.bm25, r.scores.text.embeddings)];
const offsetCells = (r: QualityRow) => [String(r.moved), ...figures(r.scores.offsets.bm25, r.scores.offsets.embeddings)];

const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
const mean = (cell: string | undefined) => Number.parseFloat(cell ?? 'NaN');

export function qualitySection(title: string, m: { rows: QualityRow[]; questions: number; documents: string[] }, ref: Reference, extra: string[]): Section {
  const { rows } = m;
  const chroma = [...(ref.text?.rows ?? new Map<string, string[]>()).entries()].filter(([name]) => !name.startsWith('chunkd'));
  const parts = [
    `${m.questions} questions over one index of ${m.documents.length} corpora (${m.documents.join(', ')}), k = ${K}, metrics as in the README's "Evaluating retrieval quality" (service/evaluation/): mean ± standard deviation over questions, in %. ` +
      `Retrievers: BM25 (k1 1.2, b 0.75, Lucene idf) and the built-in model chunkd/glove-sif-100d (exact cosine). Data: the folder CHUNKD_QUALITY_DATA names. ${CANDIDATES_NOTE}` +
      (extra.length ? ` Rows from EXTRA: ${extra.join(', ')}.` : '') +
      ' These figures are in-sample: the EXTRA settings were tuned on these corpora. Held-out figures (settings chosen on other corpora) are in "Retrieval quality held out".',
    '',
    `### k = ${K}, chunks placed by text search (the benchmark's way)`,
    '',
    table(
      HEAD_TEXT,
      rows.map((r) => [r.name, ...textCells(r)]),
    ),
    '',
  ];
  if (chroma.length) {
    parts.push(
      "### The benchmark's own chunkers (reference-results.md of the data, the same retrievers)",
      '',
      table(
        HEAD_TEXT,
        chroma.map(([n, cells]) => [n, ...cells]),
      ),
      '',
    );
  }
  parts.push(
    '### The same chunks scored at their exact offsets',
    '',
    table(
      HEAD_OFFSETS,
      rows.map((r) => [r.name, ...offsetCells(r)]),
    ),
    '',
  );
  const checks: Check[] = [consistency(rows, ref.text), ...goals(rows, chroma), stretch(rows)];
  const same = sameRows(rows, ref);
  if (same) parts.push(same, '');
  parts.push(...checks.map((c) => `- ${c.met === undefined ? 'not measured' : c.met ? 'met' : 'not met'}: ${c.what}: ${c.measured ?? c.note ?? ''}`));
  return { title, body: parts.join('\n').trimEnd(), checks };
}

/** chunkd token 200/0 with BM25 reproduces the reference row to the last printed digit. */
function consistency(rows: QualityRow[], ref: ReferenceTable | undefined): Check {
  const what = `${CONSISTENCY} (cl100k_base) with BM25 reproduces the reference row (recall 87.6, IoU 4.45) to the last digit`;
  const row = rows.find((r) => r.name === CONSISTENCY);
  const expected = ref?.rows.get(CONSISTENCY);
  if (!row || !expected) return { what, measured: undefined, met: undefined, note: row ? 'no reference-results.md in the data folder' : 'row not measured' };
  const cells = textCells(row);
  const bm25 = [2, 3, 4]; // recall, precision, IoU
  const met = bm25.every((i) => cells[i] === expected[i]);
  return { what, measured: `recall ${cells[2]}, IoU ${cells[4]} (reference ${expected[2]}, ${expected[4]})`, met };
}

/** Rows measured as the reference measured them: how many cells agree. */
function sameRows(rows: QualityRow[], ref: Reference): string | undefined {
  let compared = 0;
  const differ: string[] = [];
  for (const [kind, t, cells] of [
    ['text', ref.text, textCells],
    ['offsets', ref.offsets, offsetCells],
  ] as const) {
    for (const r of rows) {
      const expected = t?.rows.get(r.name);
      if (!expected) continue;
      const got = cells(r);
      compared++;
      const bad = got.map((c, i) => (c === expected[i] ? undefined : `${t!.header[i + 1]} ${c} (reference ${expected[i]})`)).filter(Boolean);
      if (bad.length) differ.push(`${r.name} (${kind}): ${bad.join('; ')}`);
    }
  }
  if (!compared) return undefined;
  return differ.length
    ? `Of ${compared} chunkd rows also in reference-results.md, ${compared - differ.length} are identical in every figure; these differ: ${differ.join(' · ')}`
    : `All ${compared} chunkd rows also in reference-results.md are identical to it in every figure.`;
}

/** For each of the benchmark's own chunkers, a chunkd row at least as good on recall and IoU, per retriever. */
function goals(rows: QualityRow[], chroma: [string, string[]][]): Check[] {
  return (['bm25', 'embeddings'] as const).map((retriever) => {
    const label = retriever === 'bm25' ? 'BM25' : 'the built-in model';
    const what = `in-sample: every benchmark chunker row is matched or beaten on recall and IoU by a chunkd configuration, with ${label}`;
    if (!chroma.length) return { what, measured: undefined, met: undefined, note: 'no reference rows in the data folder' };
    const [ri, ii] = retriever === 'bm25' ? [2, 4] : [5, 7];
    const ours = rows.map((r) => ({ name: r.name, cells: textCells(r) }));
    const missed: string[] = [];
    const beaten: string[] = [];
    for (const [name, cells] of chroma) {
      const by = ours.find((o) => mean(o.cells[ri]) >= mean(cells[ri]) && mean(o.cells[ii]) >= mean(cells[ii]));
      if (by) beaten.push(`${name} ≤ ${by.name}`);
      else missed.push(`${name} (${mean(cells[ri])} / ${mean(cells[ii])})`);
    }
    return { what, measured: `${beaten.length} of ${chroma.length}${missed.length ? `; not matched: ${missed.join(', ')}` : ''}`, met: missed.length === 0 };
  });
}

/** One configuration with BM25 IoU ≥ 7.0 at recall ≥ 85. */
function stretch(rows: QualityRow[]): Check {
  const what = 'one configuration with BM25 IoU ≥ 7.0 at recall ≥ 85';
  const ok = rows.filter((r) => Number(r.scores.text.bm25.recall.mean.toFixed(1)) >= 85);
  const best = ok.sort((a, b) => b.scores.text.bm25.iou.mean - a.scores.text.bm25.iou.mean)[0];
  if (!best) return { what, measured: 'no row at recall ≥ 85', met: false };
  const iou = Number(best.scores.text.bm25.iou.mean.toFixed(2));
  return { what, measured: `best IoU at recall ≥ 85: ${iou.toFixed(2)} (${best.name}, recall ${best.scores.text.bm25.recall.mean.toFixed(1)})`, met: iou >= 7 };
}
