/** The held-out section of bench/results.md: per corpus left out, what was chosen on the others and how it does. */
import type { LocateMode } from '../../service/evaluation/locate.js';
import type { Check, Section } from '../harness.js';
import type { QualityCandidate } from './candidates.js';
import type { Corpus } from './folds.js';
import { MAX_CHOSEN, type FoldResult, reproduced } from './heldout.js';
import { K } from './measure.js';
import { bestBy, CEILING_ROWS, dominance, highRecall, select, type Figures, type Fold } from './select.js';

const LABEL = { bm25: 'BM25', embeddings: 'built-in model' } as const;

const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
const fmt = (f: { recall: number; iou: number }) => `${f.recall.toFixed(1)} / ${f.iou.toFixed(2)}`;
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The roles read from a chosen set by its training figures: most recall, most IoU, per retriever. */
const ROLES: { head: string; retriever: 'bm25' | 'embeddings'; pick: (f: Figures) => number }[] = [
  { head: 'high recall, BM25', retriever: 'bm25', pick: (f) => f.bm25.recall + f.bm25.iou / 1e3 },
  { head: 'precise, BM25', retriever: 'bm25', pick: (f) => f.bm25.iou },
  { head: 'high recall, built-in model', retriever: 'embeddings', pick: (f) => f.embeddings.recall + f.embeddings.iou / 1e3 },
  { head: 'precise, built-in model', retriever: 'embeddings', pick: (f) => f.embeddings.iou },
];

/** A role's member of a chosen set, read from its training figures (high recall as the selection rule reads it). */
const member = (role: (typeof ROLES)[number], set: string[], train: string[], fold: Fold) =>
  (role.head.startsWith('high recall') ? highRecall(set, train, fold, role.retriever) : undefined) ?? bestBy(set, train, fold, role.pick)!;

function foldTable(ids: string[], folds: FoldResult[], fold: Fold): string {
  const rows: string[][] = [];
  const roleFigures = ROLES.map(() => [] as { recall: number; iou: number }[]);
  for (const f of folds) {
    const train = ids.filter((c) => c !== f.corpus);
    const roles = ROLES.map((role, i) => {
      const g = member(role, f.chosen, train, fold);
      const figures = fold.scores.get(f.corpus)!.get(g)![role.retriever];
      roleFigures[i]!.push(figures);
      return `${fmt(figures)} (${g})`;
    });
    const d = f.dominance;
    rows.push([f.corpus, f.chosen.join(' · '), `${d.bm25.matched} of ${d.bm25.total}`, `${d.embeddings.matched} of ${d.embeddings.total}`, ...roles]);
  }
  const sum = (r: 'bm25' | 'embeddings', k: 'matched' | 'total') => folds.reduce((n, f) => n + f.dominance[r][k], 0);
  rows.push([
    '**mean**',
    '',
    `${sum('bm25', 'matched')} of ${sum('bm25', 'total')}`,
    `${sum('embeddings', 'matched')} of ${sum('embeddings', 'total')}`,
    ...roleFigures.map((fs) => fmt({ recall: avg(fs.map((x) => x.recall)), iou: avg(fs.map((x) => x.iou)) })),
  ]);
  const head = [
    'corpus left out',
    `chosen on the other ${ids.length - 1}`,
    'BM25 rows matched',
    'built-in model rows matched',
    ...ROLES.map((r) => `${r.head}: recall / IoU`),
  ];
  const missed = folds.flatMap((f) =>
    (['bm25', 'embeddings'] as const)
      .filter((r) => f.dominance[r].missed.length)
      .map((r) => `${f.corpus}, ${LABEL[r]}: ${f.dominance[r].missed.map((m) => m.replace(/^Chroma /, '')).join(', ')}`),
  );
  return [
    table(head, rows),
    '',
    missed.length ? `Rows not matched on the corpus left out: ${missed.join('; ')}.` : 'Every row matched on every corpus left out.',
  ].join('\n');
}

/** No recall ceiling: the set's high-recall member (as the selection rule reads it) reaches those rows' recall on the corpus left out. */
function ceiling(ids: string[], folds: FoldResult[], fold: Fold, locate: LocateMode, r: 'bm25' | 'embeddings'): Check {
  const role = ROLES.find((x) => x.retriever === r && x.head.startsWith('high recall'))!;
  const short: string[] = [];
  let compared = 0;
  for (const f of folds) {
    const g = member(
      role,
      f.chosen,
      ids.filter((c) => c !== f.corpus),
      fold,
    );
    const recall = Math.round(fold.scores.get(f.corpus)!.get(g)![r].recall * 10);
    for (const row of CEILING_ROWS) {
      const ref = fold.targets.get(f.corpus)?.get(row);
      if (!ref) continue;
      compared++;
      if (recall < Math.round(ref[r].recall * 10))
        short.push(`${f.corpus}: ${g} ${(recall / 10).toFixed(1)} < ${row.replace(/^Chroma /, '')} ${ref[r].recall.toFixed(1)}`);
    }
  }
  return {
    what: `held out (${locate}): the high-recall choice reaches the recall of ${CEILING_ROWS.map((x) => x.replace(/^Chroma /, '')).join(' and ')} (where the corpus has them) on every corpus left out, ${LABEL[r]}`,
    measured: `${compared - short.length} of ${compared}${short.length ? `; short: ${short.join(', ')}` : ''}`,
    met: !short.length,
  };
}

export function heldOutSection(
  title: string,
  corpora: Corpus[],
  grid: QualityCandidate[],
  measured: Parameters<typeof reproduced>[2],
  byLocate: Record<LocateMode, { fold: Fold; folds: FoldResult[] }>,
  presets: { file: string; steps: unknown }[],
): Section {
  const ids = corpora.map((c) => c.id);
  const names = grid.map((g) => g.name);
  const own = corpora.filter((c) => c.reference).map((c) => c.id);
  const fixed = corpora.filter((c) => !c.reference).map((c) => c.id);
  const rep = reproduced(corpora, grid, measured);
  const parts = [
    `Leave one corpus out over ${corpora.length} corpora (${corpora.map((c) => `${c.id} ${c.questions.length} questions`).join(', ')}), each its own index, k = ${K}, recall / IoU in % (mean over the corpus's questions). ` +
      `For each corpus, at most ${MAX_CHOSEN} pipelines of the grid (${grid.length}: ${names.join('; ')}; bench/quality/grid.ts) are chosen on the other corpora and scored on it. ` +
      `Selection rule (bench/quality/select.ts): first, per retriever, the pipeline that reaches the recall of ${CEILING_ROWS.map((r) => r.replace(/^Chroma /, '')).join(' and ')} on the most training corpora (ties to the higher mean training recall); then greedily, the pipeline that matches (recall ≥ and IoU ≥, as printed) the most reference rows not yet matched, a row counted once per training corpus and retriever; ties to the one matching more rows in all. ` +
      `Reference rows: on ${own.join(', ')} the benchmark's 14 chunkers as measured on that corpus alone (reference-results.md of the data); on ${fixed.join(', ')}, whose data has its reference rows only over one index of all three, its 6 FixedTokenChunker rows, reproduced per corpus by chunkd's token chunker (the same chunks). ` +
      `Where both exist, the token rows reproduce the reference's FixedTokenChunker figures in ${rep.same} of ${rep.compared} cells${rep.differ.length ? ` (differ: ${rep.differ.join('; ')})` : ''}. ` +
      `Roles: in each chosen set, for that retriever, the high-recall member as the selection rule reads it (or the member with the most IoU) on the training corpora; its figures are on the corpus left out.`,
  ];
  const checks: Check[] = [];
  for (const locate of ['text', 'offsets'] as const) {
    const { fold, folds } = byLocate[locate];
    parts.push(
      '',
      `### Held out, chunks placed ${locate === 'text' ? "by text search (the benchmark's way)" : 'at their exact offsets'}`,
      '',
      foldTable(ids, folds, fold),
    );
    for (const r of ['bm25', 'embeddings'] as const) {
      const matched = folds.reduce((n, f) => n + f.dominance[r].matched, 0);
      const total = folds.reduce((n, f) => n + f.dominance[r].total, 0);
      checks.push({
        what: `held out (${locate}): every reference row matched on every corpus left out, ${LABEL[r]}`,
        measured: `${matched} of ${total}`,
        met: matched === total,
      });
      checks.push(ceiling(ids, folds, fold, locate, r));
    }
  }
  // The shipped presets: the same rule on all corpora; their figures there are in-sample.
  const { fold } = byLocate.text;
  const all = select(names, ids, fold, MAX_CHOSEN);
  const chosenIn = (g: string) => byLocate.text.folds.filter((f) => f.chosen.includes(g)).length;
  parts.push(
    '',
    `### Chosen on all ${ids.length} corpora (the presets), in-sample`,
    '',
    table(
      ['pipeline', `chosen in folds (of ${ids.length})`, 'mean tokens (cl100k)', ...ids.flatMap((c) => [`${c} BM25`, `${c} model`])],
      all.map((g) => [
        g,
        String(chosenIn(g)),
        String(Math.round(avg(ids.map((c) => measured.get(c)!.get(g)!.meanTokens)))),
        ...ids.flatMap((c) => [fmt(fold.scores.get(c)!.get(g)!.bm25), fmt(fold.scores.get(c)!.get(g)!.embeddings)]),
      ]),
    ),
    '',
    `In-sample rows matched by that set (not a held-out figure): ${ids
      .map((c) => {
        const d = dominance(all, c, fold);
        return `${c} ${d.bm25.matched}/${d.bm25.total} BM25, ${d.embeddings.matched}/${d.embeddings.total} model`;
      })
      .join('; ')}.`,
  );
  // The shipped files are the set chosen here: a file per pipeline, none more.
  const stepsOf = (g: string) => JSON.stringify(grid.find((c) => c.name === g)!.steps);
  const shipped = new Set(presets.map((p) => JSON.stringify(p.steps)));
  const absent = all.filter((g) => !shipped.has(stepsOf(g)));
  const extra = presets.filter((p) => !all.some((g) => stepsOf(g) === JSON.stringify(p.steps))).map((p) => p.file);
  checks.push({
    what: 'presets/retrieval holds exactly the pipelines chosen on all corpora',
    measured:
      absent.length || extra.length
        ? `missing: ${absent.join(', ') || 'none'}; not chosen: ${extra.join(', ') || 'none'}`
        : `${presets.length} files, ${all.length} chosen`,
    met: !absent.length && !extra.length,
  });
  parts.push('', ...checks.map((c) => `- ${c.met ? 'met' : 'not met'}: ${c.what}: ${c.measured}`));
  return { title, body: parts.join('\n'), checks };
}
