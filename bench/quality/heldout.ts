/**
 * The held-out protocol: leave one corpus out. For each corpus, a set of grid pipelines is chosen
 * on the other corpora (bench/quality/select.ts) and scored on it, against the benchmark's rows
 * measured on that corpus alone. Every grid pipeline is measured once per corpus (its own index,
 * its own questions) and the figures are cached in a JSON file, keyed by the corpus text's hash, the
 * pipeline's steps and the source of its plugins (a changed chunker is measured again); the
 * selection then runs in memory.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from '../../kernel/paths.js';
import type { LocateMode } from '../../service/evaluation/locate.js';
import type { QualityCandidate } from './candidates.js';
import type { Corpus, Point } from './folds.js';
import type { Measurer } from './measure.js';
import { dominance, RETRIEVER_NAMES, select, type Figures, type Fold } from './select.js';

/** At most this many pipelines are chosen (and shipped as presets). */
export const MAX_CHOSEN = 8;

/** Per locate mode, the figures of one pipeline on one corpus. */
export type Cached = { chunks: number; meanTokens: number } & Record<LocateMode, Figures>;

/** The benchmark's FixedTokenChunker rows: chunkd's token chunker gives the same chunks. */
const fixedRows = (grid: QualityCandidate[]) =>
  grid.filter((c) => /^token \d+\/\d+$/.test(c.name)).map((c) => [`Chroma FixedTokenChunker ${c.name.slice(6)}`, c.name] as const);

/** The kernel's shared code the plugins cut and embed with (the recursive chunker, recipes, embeddings). */
const SHARED_FOLDERS = [join('kernel', 'split'), join('kernel', 'embeddings')];

/** A hash of the non-test sources in the folders of the plugins a pipeline's steps name, and of the shared code they use. */
function sourceHash(c: QualityCandidate): string {
  const h = createHash('sha256');
  for (const folder of [...c.steps.map((step) => join(ROOT, 'plugins', step.chunker ?? step.refinery ?? '')), ...SHARED_FOLDERS.map((f) => join(ROOT, f))]) {
    if (!existsSync(folder)) continue;
    for (const f of readdirSync(folder)
      .filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts'))
      .sort())
      h.update(readFileSync(join(folder, f)));
  }
  return h.digest('hex').slice(0, 12);
}

export async function measureGrid(
  corpora: Corpus[],
  grid: QualityCandidate[],
  cacheFile: string,
  measure: () => Promise<Measurer>,
  log: (l: string) => void,
): Promise<Map<string, Map<string, Cached>>> {
  const cache: Record<string, Cached> = existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, 'utf8')) : {};
  let one: Measurer | undefined;
  const out = new Map<string, Map<string, Cached>>();
  for (const corpus of corpora) {
    const hash = createHash('sha256').update(corpus.document.text).update(JSON.stringify(corpus.questions)).digest('hex').slice(0, 16);
    const row = new Map<string, Cached>();
    for (const c of grid) {
      const key = `${corpus.id} ${hash} ${sourceHash(c)} ${JSON.stringify(c.steps)}`;
      if (!cache[key]) {
        one ??= await measure();
        const r = await one(c, [corpus.document], corpus.questions);
        const fig = (l: LocateMode): Figures =>
          Object.fromEntries(RETRIEVER_NAMES.map((n) => [n, { recall: r.scores[l][n].recall.mean, iou: r.scores[l][n].iou.mean }])) as Figures;
        cache[key] = { chunks: r.chunks, meanTokens: r.meanTokens, text: fig('text'), offsets: fig('offsets') };
        log(`  ${corpus.id} · ${c.name}: BM25 ${cache[key].text.bm25.recall.toFixed(1)} / ${cache[key].text.bm25.iou.toFixed(2)} (${r.seconds.toFixed(1)} s)`);
        mkdirSync(dirname(cacheFile), { recursive: true });
        writeFileSync(cacheFile, JSON.stringify(cache, null, 1));
      }
      row.set(c.name, cache[key]);
    }
    out.set(corpus.id, row);
  }
  return out;
}

export interface FoldResult {
  corpus: string;
  chosen: string[];
  dominance: ReturnType<typeof dominance>;
}

/** The scores and targets for one locate mode. Corpora without rows of their own get the FixedTokenChunker rows, reproduced. */
export function foldData(corpora: Corpus[], grid: QualityCandidate[], measured: Map<string, Map<string, Cached>>, locate: LocateMode): Fold {
  const scores = new Map([...measured].map(([c, rows]) => [c, new Map([...rows].map(([g, r]) => [g, r[locate]]))]));
  const targets = new Map<string, Map<string, Figures>>();
  for (const corpus of corpora) {
    if (corpus.reference) {
      targets.set(corpus.id, corpus.reference);
      continue;
    }
    const text = measured.get(corpus.id)!;
    const round = (p: Point): Point => ({ recall: Number(p.recall.toFixed(1)), iou: Number(p.iou.toFixed(2)) });
    targets.set(
      corpus.id,
      new Map(fixedRows(grid).map(([row, g]) => [row, { bm25: round(text.get(g)!.text.bm25), embeddings: round(text.get(g)!.text.embeddings) }])),
    );
  }
  return { scores, targets };
}

/** Leave one corpus out: the set chosen on the others, and how it does on the one left out. */
export function heldOut(corpora: string[], grid: string[], fold: Fold): FoldResult[] {
  return corpora.map((corpus) => {
    const chosen = select(
      grid,
      corpora.filter((c) => c !== corpus),
      fold,
      MAX_CHOSEN,
    );
    return { corpus, chosen, dominance: dominance(chosen, corpus, fold) };
  });
}

/** How the token rows agree with the reference's FixedTokenChunker rows where the data has them per corpus. */
export function reproduced(
  corpora: Corpus[],
  grid: QualityCandidate[],
  measured: Map<string, Map<string, Cached>>,
): { same: number; compared: number; differ: string[] } {
  let compared = 0;
  const differ: string[] = [];
  for (const corpus of corpora) {
    for (const [row, g] of fixedRows(grid)) {
      const ref = corpus.reference?.get(row);
      if (!ref) continue;
      const ours = measured.get(corpus.id)!.get(g)!.text;
      for (const r of RETRIEVER_NAMES) {
        compared++;
        const a = `${ours[r].recall.toFixed(1)} / ${ours[r].iou.toFixed(2)}`;
        const b = `${ref[r].recall.toFixed(1)} / ${ref[r].iou.toFixed(2)}`;
        if (a !== b) differ.push(`${corpus.id} ${g} ${r}: ${a} (reference ${b})`);
      }
    }
  }
  return { same: compared - differ.length, compared, differ };
}
