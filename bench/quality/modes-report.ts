/**
 * The "Search modes held out" section of bench/results.md: the text, vector and hybrid modes of a
 * store measured on every shipped preset, each corpus its own index; the hybrid rule and its
 * weights chosen by leaving one corpus out (bench/quality/modes-fit.ts); the index-text variants
 * (kernel/index-text.ts) kept or not by the same protocol; the benchmark's reference rows the
 * presets match in each mode; and the preset selection re-run on the modes' figures.
 */
import { EMBEDDED_MODEL } from '../../kernel/fields.js';
import { fusionFor, type FusionRule } from '../../kernel/fusion.js';
import type { Check, Section } from '../harness.js';
import type { Corpus, Point } from './folds.js';
import { MAX_CHOSEN } from './heldout.js';
import { family, fit, heldOutRules, heldOutVariants, RULE_GRID, ruleName, TOLERANCE, type Cell } from './modes-fit.js';
import { DEPTH, figure, K, synthetic, VARIANTS, type Collected, type Figure, type Mode, type Variant } from './modes.js';
import { dominance, dominates, select, type Figures, type Fold } from './select.js';

export const TITLE = 'Search modes held out (text, vector, hybrid)';

/** What the section is made from (bench/suites/quality-modes.ts collects it). */
export interface ModesInput {
  corpora: Corpus[];
  /** Each corpus its own index × every preset × every variant. */
  own: Collected[];
  /** One index of every corpus × every preset, variants `span` and `name` (the document's name can only matter among several documents). */
  shared: Collected[];
  /** Indexes over several corpora for which the data has reference rows over that one index (the three public corpora), and those rows. */
  referenceIndexes: { collected: Collected[]; rows: Map<string, Figures> }[];
  /** Each corpus its own index × the held-out protocol's grid (bench/quality/grid.ts), variant `span`. */
  grid: Collected[];
  gridNames: string[];
  /** The shipped presets by name (file name without .json) and the grid pipeline each is, if any. */
  presets: { name: string; grid?: string }[];
}

const SYNTHETIC_STRENGTH = 3;
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
const r1 = (x: number) => x.toFixed(1);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;
const rip = (f: Figure) => `${r1(f.recall)} / ${f.iou.toFixed(2)} / ${f.precision.toFixed(2)}`;
const BEFORE: Mode = 'hybrid-before';

/** Cells of one variant: text, vector, and every rule of the grid (recall only). */
function cells(collected: Collected[], rules: FusionRule[]): (Cell & { text: number; vector: number })[] {
  return collected.map((c) => {
    const text = figure(c, 'text').recall;
    const vector = figure(c, 'vector').recall;
    return { corpus: c.index, pipeline: c.pipeline, text, vector, better: Math.max(text, vector), recall: rules.map((r) => figure(c, r).recall) };
  });
}

/** Per family (and all rules together): the rule chosen on the other corpora, and how it does on the one left out. */
function familyRows(cs: Cell[], ids: string[]): { name: string; chosen: Map<string, number>; worst: number; worstAt: string; mean: number }[] {
  const all = RULE_GRID.map((_, i) => i);
  const groups: [string, number[]][] = [
    ['every rule', all],
    ...[...new Set(RULE_GRID.map(family))].map((f): [string, number[]] => [f, all.filter((i) => family(RULE_GRID[i]!) === f)]),
  ];
  return groups.map(([name, rules]) => {
    const chosen = heldOutRules(cs, ids, rules);
    let worst = Infinity;
    let worstAt = '';
    const recalls: number[] = [];
    for (const c of cs) {
      const r = chosen.get(c.corpus)!;
      const gap = c.recall[r]! - c.better;
      recalls.push(c.recall[r]!);
      if (gap < worst) {
        worst = gap;
        worstAt = `${c.corpus}, ${c.pipeline}`;
      }
    }
    return { name, chosen, worst, worstAt, mean: avg(recalls) };
  });
}

/** The section: every figure in it is of a corpus left out, except where it says in-sample. */
export function modesSection(input: ModesInput): Section {
  const ids = input.corpora.map((c) => c.id);
  const span = input.own.filter((c) => c.variant === 'span');
  const recorded = fusionFor(EMBEDDED_MODEL);
  const checks: Check[] = [];
  const parts: string[] = [];

  parts.push(
    `Each corpus its own index (${input.corpora.map((c) => `${c.id} ${c.questions.length} questions`).join(', ')}), every shipped preset (presets/retrieval/), k = ${K}, chunks placed by text search, recall / IoU / precision in % (mean over the corpus's questions). ` +
      `Modes as a store serves them: **text** is BM25 over the chunks' index text (chunkd eval's bm25); **vector** is exact cosine with the built-in model ${EMBEDDED_MODEL}; **hybrid** fuses the two lists (kernel/fusion.ts), each read to ${DEPTH} hits (BM25: chunks with a score above 0). ` +
      `"hybrid before" is the evaluation's hybrid until now (Σ 1/(60 + rank) over both full rankings, equal weights). ` +
      `Rules compared (${RULE_GRID.length}): weighted reciprocal rank (text weight w, 1 − w on vector, k ∈ {1, 2, 5, 10, 20, 60}), min-max and z-score normalised score combination with weight w, and vector re-ranking of BM25's top 10/20/50/100 (blend with weight w, w = 0 pure vector), w from 1 to 0 (1, 0.99 … 0.96, then steps of 0.05). ` +
      `Fit (bench/quality/modes-fit.ts, fixed before any fused figure was read; the grid was widened once afterwards, by w 0.99–0.96 and k 2 and 10, which did not change the verdict): on the four training corpora, a rule is admissible when on every training cell (corpus × preset) its recall is at most ${TOLERANCE.toFixed(1)} point below the better of text and vector; the admissible rule with the highest mean training recall wins, or, when none is admissible, the one whose worst training cell is least below. It is then scored on the corpus left out.`,
  );

  // 1. The fit, by family.
  const cs = cells(span, RULE_GRID);
  const fams = familyRows(cs, ids);
  const textMean = avg(cs.map((c) => c.text));
  parts.push(
    '',
    '### The hybrid rule chosen on four corpora, scored on the fifth',
    '',
    table(
      [
        'rules fitted',
        ...ids.map((c) => `${c} left out: rule chosen on the others`),
        'held-out mean recall (text alone: ' + r1(textMean) + ')',
        'worst held-out cell against the better part',
      ],
      fams.map((f) => [f.name, ...ids.map((c) => ruleName(RULE_GRID[f.chosen.get(c)!]!)), r1(f.mean), `${signed(f.worst)} (${f.worstAt})`]),
    ),
  );
  const every = fams[0]!;
  const holds = every.worst >= -TOLERANCE - 1e-9;
  parts.push(
    '',
    holds
      ? `The fit over every rule holds out: no cell left out falls more than ${TOLERANCE.toFixed(1)} point below the better part.`
      : `The fit over every rule does **not** hold out: on ${every.worstAt} the rule chosen on the other corpora is ${signed(every.worst)} points of recall@5 against the better part. In every cell the better part is text (BM25): the built-in model is weaker everywhere (below).`,
  );
  checks.push({
    what: `held out: the fitted hybrid rule is within ${TOLERANCE.toFixed(1)} point of recall@5 of the better of text and vector on every corpus left out and every preset (pre-registered fit over every rule, built-in model)`,
    measured: `worst ${signed(every.worst)} (${every.worstAt})`,
    met: holds,
  });

  // 2. The rule recorded for the built-in model, and every mode per cell.
  parts.push(
    '',
    `### Every mode per corpus and preset (held out), with the rule recorded for the built-in model`,
    '',
    `The rule recorded for ${EMBEDDED_MODEL} (kernel/fusion.ts FUSION_BY_MODEL): ${ruleName(recorded)} (depth ${recorded.depth}): BM25's ranking, with the vector hits after BM25's own (so a question none of whose words a chunk holds still gets hits). No weight is fitted for it: the fits above found no weight below 1 that both holds out and gains (the families that stay within ${TOLERANCE.toFixed(1)} point choose w ≥ 0.96 and reach text's mean, no more), so the built-in model's hybrid is BM25's ranking itself, within the requirement by construction. Cells: recall / IoU / precision.`,
    '',
  );
  const rows: string[][] = [];
  const gaps: number[] = [];
  for (const c of span) {
    const [t, v, b, h] = (['text', 'vector', BEFORE, recorded] as Mode[]).map((m) => figure(c, m));
    const cell = cs.find((x) => x.corpus === c.index && x.pipeline === c.pipeline)!;
    const loco = cell.recall[every.chosen.get(c.index)!]!;
    gaps.push(h!.recall - Math.max(t!.recall, v!.recall));
    rows.push([c.index, c.pipeline, rip(t!), rip(v!), rip(b!), rip(h!), signed(h!.recall - Math.max(t!.recall, v!.recall)), r1(loco)]);
  }
  parts.push(
    table(
      [
        'corpus',
        'preset',
        'text',
        'vector',
        'hybrid before (RRF 60, equal)',
        `hybrid (${ruleName(recorded)})`,
        'hybrid − better part (recall)',
        'hybrid, pre-registered fit: recall',
      ],
      rows,
    ),
  );
  const worstRecorded = Math.min(...gaps);
  checks.push({
    what: `held out: the recorded hybrid rule for the built-in model is within ${TOLERANCE.toFixed(1)} point of recall@5 of the better of text and vector on every corpus and preset`,
    measured: `worst ${signed(worstRecorded)} over ${gaps.length} cells`,
    met: worstRecorded >= -TOLERANCE - 1e-9,
  });

  // Summary table (the docs' snippet): mean over presets per corpus, per mode.
  const modes: [string, Mode][] = [
    ['text', 'text'],
    ['vector', 'vector'],
    ['hybrid before', BEFORE],
    ['hybrid', recorded],
  ];
  const summary = ids.map((id) => [
    id,
    ...modes.map(([, m]) => {
      const fs = span.filter((c) => c.index === id).map((c) => figure(c, m));
      return `${r1(avg(fs.map((f) => f.recall)))} / ${avg(fs.map((f) => f.iou)).toFixed(2)}`;
    }),
  ]);
  summary.push([
    '**mean**',
    ...modes.map(([, m]) => {
      const fs = span.map((c) => figure(c, m));
      return `${r1(avg(fs.map((f) => f.recall)))} / ${avg(fs.map((f) => f.iou)).toFixed(2)}`;
    }),
  ]);
  parts.push('', `Mean over the ${new Set(span.map((c) => c.pipeline)).size} presets, recall / IoU:`, '', table(['corpus', ...modes.map(([n]) => n)], summary));
  const vectorBest = span.filter((c) => figure(c, 'vector').recall > figure(c, 'text').recall).length;
  parts.push(
    '',
    `Vector beats text in ${vectorBest} of ${span.length} cells. The default mode the measurement supports for the built-in model is **text**: hybrid gains nothing held out over it (any fitted weight below 1: held-out mean ${r1(every.mean)} against ${r1(textMean)}), and the vector mode is ${r1(textMean - avg(cs.map((c) => c.vector)))} points of recall@5 below it on average.`,
  );

  // 3. Index text.
  parts.push('', "### Index text: the document's name and the heading path", '', indexTextPart(input, ids));

  // 4. Reference rows.
  parts.push('', "### The benchmark's reference rows the presets match, by mode", '', referencePart(input, recorded));

  // 5. Preset selection on the modes' figures.
  parts.push('', "### The preset selection re-run on the modes' figures", '', selectionPart(input, recorded, checks));

  // 6. Synthetic sanity check.
  parts.push('', '### Sanity check with a SYNTHETIC stronger vector retriever (no claim rests on it)', '', syntheticPart(span, ids));

  parts.push('', ...checks.map((c) => `- ${c.met ? 'met' : 'not met'}: ${c.what}: ${c.measured}`));
  return { title: TITLE, body: parts.join('\n'), checks };
}

function indexTextPart(input: ModesInput, ids: string[]): string {
  const variants = Object.keys(VARIANTS) as Variant[];
  const out: string[] = [];
  const verdicts: string[] = [];
  const withHeadings = input.corpora.filter(hasHeadings);
  out.push(
    `Variants (kernel/index-text.ts): the chunk's context and text (\`span\`, as until now), with the document's name before it (\`name\`), with its heading path (\`headings\`), with both. The benchmark's corpora are plain text files without a chef, so the heading path comes from the corpus's own heading lines (bench/quality/headings.ts: ATX and MediaWiki), as a chef would give it; of these corpora only ${withHeadings.map((c) => c.id).join(', ') || 'none'} has any. The passage presets already index their top-level heading (their context). Each corpus alone in its index holds one document, so its name is the same words on every chunk there: measured also with every corpus in one index. Per retriever, the variant is chosen on four corpora (mean recall over the presets; a tie keeps \`span\`) and scored on the fifth; cells are the held-out mean recall over the presets, chosen variant against \`span\`.`,
  );
  for (const [label, collected, vs] of [
    ['each corpus its own index', input.own, variants],
    ['every corpus in one index', input.shared, ['span', 'name'] as Variant[]],
  ] as const) {
    for (const mode of ['text', 'vector'] as const) {
      // per variant, per corpus: the recall of each preset on that corpus's questions (in its own index, or in the shared one)
      const recall = new Map(
        vs.map((v) => [
          v,
          new Map(ids.map((id) => [id, collected.filter((c) => c.variant === v && c.groups.includes(id)).map((c) => figure(c, mode, id).recall)])),
        ]),
      );
      const chosen = heldOutVariants(recall, ids);
      const row = ids.map((id) => {
        const v = chosen.get(id)!;
        const got = recall.get(v)!.get(id)!;
        const base = recall.get('span')!.get(id)!;
        const worst = Math.min(...got.map((x, i) => x - base[i]!));
        return `${v}: ${r1(avg(got))} (${signed(avg(got) - avg(base))}, worst preset ${signed(worst)})`;
      });
      out.push(
        '',
        `${label}, ${mode}:`,
        '',
        table(
          ids.map((id) => `${id} left out`),
          [row],
        ),
      );
      const inSample = vs
        .filter((v) => v !== 'span')
        .map((v) => `${v} ${ids.map((id) => `${id} ${signed(avg(recall.get(v)!.get(id)!) - avg(recall.get('span')!.get(id)!))}`).join(', ')}`);
      out.push('', `In-sample, mean over presets against \`span\`: ${inSample.join('; ')}.`);
      const gain = ids.map((id) => avg(recall.get(chosen.get(id)!)!.get(id)!) - avg(recall.get('span')!.get(id)!));
      verdicts.push(`${label}, ${mode}: held-out change ${ids.map((id, i) => `${id} ${signed(gain[i]!)}`).join(', ')}`);
    }
  }
  out.push(
    '',
    `Held out, mean over the presets, chosen variant against \`span\`: ${verdicts.join('; ')}. A variant holds out where the corpora left out gain by it; where only the corpus that shows the gain could choose it, the gain is not confirmed on any other, and the index text stays the chunk's context and text (kernel/index-text.ts defaults, what chunkd eval indexes).`,
  );
  return out.join('\n');
}

const hasHeadings = (c: Corpus) => /^\s*(#{1,6}\s|=+\s.*\s=+\s*$)/m.test(c.document.text);

/** Rows matched (recall ≥ and IoU ≥, as printed) by some preset, per mode. */
function referencePart(input: ModesInput, recorded: FusionRule): string {
  const settings: { label: string; collected: Collected[]; rows: Map<string, Figures> }[] = [
    ...input.referenceIndexes.map((r) => ({
      label: `one index of ${[...new Set(r.collected[0]?.groups ?? [])].join(', ')}`,
      collected: r.collected.filter((c) => c.variant === 'span'),
      rows: r.rows,
    })),
    ...input.corpora
      .filter((c) => c.reference)
      .map((c) => ({ label: c.id, collected: input.own.filter((x) => x.index === c.id && x.variant === 'span'), rows: c.reference! })),
  ];
  const views: [string, (col: 'bm25' | 'embeddings') => Mode][] = [
    ['like for like: BM25 rows by text, model rows by vector', (col) => (col === 'bm25' ? 'text' : 'vector')],
    ["every row by the vector mode (the stores' search until now)", () => 'vector'],
    ['every row by the text mode', () => 'text'],
    ['every row by hybrid before (RRF 60, equal)', () => BEFORE],
    [`every row by hybrid (${ruleName(recorded)})`, () => recorded],
  ];
  const head = [
    'presets searched in',
    ...settings.map((s) => `${s.label} (${s.rows.size * 2} rows)`),
    'rows not matched, of ' + settings.reduce((n, s) => n + s.rows.size * 2, 0),
  ];
  const rows = views.map(([name, modeOf]) => {
    let missed = 0;
    const cellsOut = settings.map((s) => {
      let m = 0;
      for (const [, ref] of s.rows) {
        for (const col of ['bm25', 'embeddings'] as const) {
          const mode = modeOf(col);
          const ok = s.collected.some((c) => {
            const f = figure(c, mode);
            return dominates({ recall: f.recall, iou: f.iou }, ref[col]);
          });
          if (!ok) m++;
        }
      }
      missed += m;
      return `${s.rows.size * 2 - m} matched`;
    });
    return [name, ...cellsOut, String(missed)];
  });
  return [
    'The benchmark\'s own chunkers (Chroma\'s FixedToken, RecursiveToken, ClusterSemantic and KamradtModified rows of reference-results.md), each row once with BM25 and once with the built-in model: 14 rows over one index of the three public corpora and 14 per corpus on pubmed and chatlogs, 84 in all. A row is matched when some shipped preset, searched in the mode named, reaches its recall and IoU (as printed). The presets were chosen on all five corpora: these counts are in-sample for the presets (the held-out counts are in "Retrieval quality held out" and in the selection below).',
    '',
    table(head, rows),
  ].join('\n');
}

/** The held-out protocol of bench/quality/heldout.ts on the grid, with the text retriever's figures from BM25 (until now) or from hybrid. */
function selectionPart(input: ModesInput, recorded: FusionRule, checks: Check[]): string {
  const ids = input.corpora.map((c) => c.id);
  const fig = (mode: Mode) => new Map(ids.map((id) => [id, new Map(input.grid.filter((c) => c.index === id).map((c) => [c.pipeline, figure(c, mode)]))]));
  const text = fig('text');
  const vector = fig('vector');
  const hybrid = fig(recorded);
  const point = (f: Figure): Point => ({ recall: f.recall, iou: f.iou });
  const round = (p: Point): Point => ({ recall: Number(p.recall.toFixed(1)), iou: Number(p.iou.toFixed(2)) });
  const fixed = input.gridNames.filter((g) => /^token \d+\/\d+$/.test(g));
  const targets = new Map(
    input.corpora.map((c) => [
      c.id,
      c.reference ??
        new Map(
          fixed.map((g) => [
            `Chroma FixedTokenChunker ${g.slice(6)}`,
            { bm25: round(point(text.get(c.id)!.get(g)!)), embeddings: round(point(vector.get(c.id)!.get(g)!)) },
          ]),
        ),
    ]),
  );
  const foldOf = (t: typeof text): Fold => ({
    scores: new Map(
      ids.map((id) => [id, new Map(input.gridNames.map((g) => [g, { bm25: point(t.get(id)!.get(g)!), embeddings: point(vector.get(id)!.get(g)!) }]))]),
    ),
    targets,
  });
  const before = foldOf(text);
  const after = foldOf(hybrid);
  const lines: string[] = [];
  let same = 0;
  const matched = { before: { bm25: 0, embeddings: 0, textForModel: 0 }, after: { bm25: 0, embeddings: 0, textForModel: 0 } };
  let total = 0;
  for (const held of ids) {
    const train = ids.filter((c) => c !== held);
    const a = select(input.gridNames, train, before, MAX_CHOSEN);
    const b = select(input.gridNames, train, after, MAX_CHOSEN);
    if (JSON.stringify(a) === JSON.stringify(b)) same++;
    else lines.push(`${held} left out: ${a.join(' · ')} (text by BM25) against ${b.join(' · ')} (text by hybrid)`);
    for (const [key, set, fold] of [
      ['before', a, before],
      ['after', b, after],
    ] as const) {
      const d = dominance(set, held, fold);
      matched[key].bm25 += d.bm25.matched;
      matched[key].embeddings += d.embeddings.matched;
      // the model's rows, matched by the set searched in the text (or hybrid) mode: a store's default mode for the built-in model
      const asText: Fold = {
        scores: new Map([[held, new Map(set.map((g) => [g, { bm25: fold.scores.get(held)!.get(g)!.bm25, embeddings: fold.scores.get(held)!.get(g)!.bm25 }]))]]),
        targets: fold.targets,
      };
      matched[key].textForModel += dominance(set, held, asText).embeddings.matched;
    }
    total += targets.get(held)!.size;
  }
  const allBefore = select(input.gridNames, ids, before, MAX_CHOSEN);
  const allAfter = select(input.gridNames, ids, after, MAX_CHOSEN);
  const shipped = input.presets.map((p) => p.grid).filter((g): g is string => !!g);
  const presetsSame = JSON.stringify([...allAfter].sort()) === JSON.stringify([...shipped].sort());
  checks.push({
    what: 'the preset selection on hybrid figures chooses the shipped presets (presets/retrieval/ unchanged)',
    measured: presetsSame
      ? `${allAfter.length} chosen on all corpora, the shipped ${shipped.length}`
      : `chosen: ${allAfter.join(', ')}; shipped: ${shipped.join(', ')}`,
    met: presetsSame,
  });
  return [
    `The selection rule of bench/quality/select.ts on the grid (${input.gridNames.length} pipelines), leaving one corpus out, with the text retriever's figures taken from BM25 (as until now) or from hybrid (${ruleName(recorded)}); the vector retriever's are the built-in model's in both. The sets chosen are the same in ${same} of ${ids.length} folds${lines.length ? `; they differ: ${lines.join('; ')}` : ''}, and on all ${ids.length} corpora ${JSON.stringify(allBefore) === JSON.stringify(allAfter) ? 'the same' : 'different'} (${allAfter.join(' · ')}).`,
    '',
    table(
      [
        'held out, reference rows matched (of ' + total + ' per retriever)',
        'BM25 rows by text',
        'model rows by vector',
        "model rows by text (a store's default mode for the built-in model)",
      ],
      [
        ['text by BM25 (until now)', String(matched.before.bm25), String(matched.before.embeddings), String(matched.before.textForModel)],
        [`text by hybrid (${ruleName(recorded)})`, String(matched.after.bm25), String(matched.after.embeddings), String(matched.after.textForModel)],
      ],
    ),
  ].join('\n');
}

function syntheticPart(span: Collected[], ids: string[]): string {
  const syn = span.map((c, i) => synthetic(c, SYNTHETIC_STRENGTH, 7919 * (i + 1)));
  const rules = RULE_GRID.filter((r) => r.rule === 'rrf');
  const cs = cells(syn, rules);
  const all = rules.map((_, i) => i);
  const chosen = new Map(
    ids.map((c) => [
      c,
      fit(
        cs.filter((x) => x.corpus !== c),
        all,
      ),
    ]),
  );
  const rows = ids.map((id) => {
    const here = cs.filter((c) => c.corpus === id);
    const r = chosen.get(id)!;
    return [
      id,
      ruleName(rules[r]!),
      r1(avg(here.map((c) => c.text))),
      r1(avg(here.map((c) => c.vector))),
      r1(avg(here.map((c) => c.recall[r]!))),
      signed(Math.min(...here.map((c) => c.recall[r]! - c.better))),
    ];
  });
  return [
    `To check that the fit trusts a stronger vector retriever more, the vector lists were replaced by a made-up retriever: each chunk scores ${SYNTHETIC_STRENGTH} × the share of the question's reference it holds plus standard normal noise (seeded), so its errors are independent of BM25's. It is not a model and says nothing about any real one; only the reciprocal-rank rules were fitted.`,
    '',
    table(['corpus left out', 'rule chosen on the others', 'text', 'synthetic vector', 'hybrid', 'worst preset against the better part'], rows),
  ].join('\n');
}
