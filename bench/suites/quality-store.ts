/**
 * Search modes through a store: every corpus of the data folders CHUNKD_QUALITY_DATA names (each
 * its own index, its own questions), every shipped preset, written to the default store (embedded
 * LanceDB, under a temporary data directory) and searched in each mode, as `chunkd eval --retriever
 * store:default:MODE` does; beside each, the exact retriever of that mode on the same chunks. The
 * figures are what a user's search returns: LanceDB's own BM25 and tokenizer for `text`, its vector
 * search for `vector`, and hybrid fused from both. Whenever the suite runs, its section is written
 * into bench/results.md in place.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discover } from '../../kernel/discovery.js';
import { inline } from '../../kernel/engine/index.js';
import { EMBEDDED_MODEL } from '../../kernel/fields.js';
import { SEARCH_MODES, type SearchMode } from '../../kernel/search-mode.js';
import { evaluate } from '../../service/evaluation/evaluate.js';
import { evalServices, stepsCandidate, type RuntimeDeps } from '../../service/evaluation/runtime.js';
import type { EvalRetriever, EvalSpec } from '../../service/evaluation/spec.js';
import { validateSteps, type Step } from '../../service/pipelines/steps.js';
import { resolveSettings } from '../../service/settings.js';
import { Stores } from '../../service/stores/stores.js';
import { presetFiles } from '../../scripts/presets-table.js';
import type { Check, CustomSuite, Section } from '../harness.js';
import { readCorpora, type Corpus } from '../quality/folds.js';
import { table } from '../table.js';
import { qualityDirs, splice } from './quality.js';

export const TITLE = 'Search modes through the default store (LanceDB)';
const K = 5;
/** What "within" means in the targets: points of recall@5. */
const SLACK = 1.0;

interface Cell {
  corpus: string;
  preset: string;
  /** recall@5 in % through the store, by mode, and of the exact retriever of that mode. */
  store: Record<SearchMode, number>;
  exact: Record<SearchMode, number>;
}

async function measure(corpora: Corpus[], log: (l: string) => void): Promise<Cell[]> {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-bench-store-modes-'));
  const settings = resolveSettings({}, { ...process.env, CHUNKD_DATA_DIR: dir, CHUNKD_STORES: '', CHUNKD_MAX_TEXT_CHARS: String(64 * 1024 * 1024) });
  const registry = await discover(settings.pluginsDir);
  const stores = Stores.fromSettings(registry, settings);
  try {
    const deps: RuntimeDeps = { registry, executor: inline, settings, stores };
    const presets = presetFiles().map((p) => ({ name: p.file.replace(/\.json$/, ''), steps: p.pipeline.steps as Step[] }));
    const cells: Cell[] = [];
    for (const corpus of corpora) {
      for (const preset of presets) {
        const cell: Cell = { corpus: corpus.id, preset: preset.name, store: {} as Cell['store'], exact: {} as Cell['exact'] };
        const steps = await validateSteps(registry, preset.steps, [preset.name]);
        const candidate = await stepsCandidate(preset.name, steps, 'codepoint', deps);
        for (const mode of SEARCH_MODES) {
          const retriever = `store:default:${mode}` as EvalRetriever;
          const spec: EvalSpec = {
            documents: [corpus.document],
            questions: corpus.questions,
            retriever,
            embeddingModel: EMBEDDED_MODEL,
            k: [K],
            locate: 'text',
            unit: 'codepoint',
            detail: false,
          };
          const services = await evalServices(deps, EMBEDDED_MODEL, 'default', mode);
          const { results } = await evaluate(spec, [candidate], services);
          cell.store[mode] = results.find((r) => r.retriever === retriever)!.recall.mean;
          cell.exact[mode] = results.find((r) => r.retriever !== retriever)!.recall.mean;
        }
        log(`  ${corpus.id} ${preset.name}: ${SEARCH_MODES.map((m) => `${m} ${cell.store[m].toFixed(1)} (exact ${cell.exact[m].toFixed(1)})`).join(', ')}`);
        cells.push(cell);
      }
    }
    return cells;
  } finally {
    await stores.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const f1 = (n: number) => n.toFixed(1);
const signed = (n: number) => `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(1)}`;

/** The worst cell of `gap` (lowest), named. */
function worst(cells: Cell[], gap: (c: Cell) => number): { gap: number; where: string } {
  const w = cells.reduce((a, b) => (gap(b) < gap(a) ? b : a));
  return { gap: gap(w), where: `${w.corpus}, ${w.preset}` };
}

export function storeModesSection(cells: Cell[], about: string): Section {
  const textGap = (c: Cell) => c.store.text - c.exact.text;
  const hybridGap = (c: Cell) => c.store.hybrid - Math.max(c.store.text, c.store.vector);
  const rows = cells.map((c) => [
    c.corpus,
    c.preset,
    ...SEARCH_MODES.map((m) => `${f1(c.store[m])} / ${f1(c.exact[m])}`),
    signed(textGap(c)),
    signed(hybridGap(c)),
  ]);
  const byCorpus = [...new Set(cells.map((c) => c.corpus))].map((corpus) => {
    const of = cells.filter((c) => c.corpus === corpus);
    const mean = (f: (c: Cell) => number) => f1(of.reduce((n, c) => n + f(c), 0) / of.length);
    return [corpus, ...SEARCH_MODES.map((m) => `${mean((c) => c.store[m])} / ${mean((c) => c.exact[m])}`)];
  });
  const wText = worst(cells, textGap);
  const wHybrid = worst(cells, hybridGap);
  const checks: Check[] = [
    {
      what: `through the default store in its default mode (text for the built-in model), every preset's recall@5 is within ${SLACK} point of the exact bm25 retriever on the same chunks, or above`,
      measured: `worst ${signed(wText.gap)} (${wText.where})`,
      met: wText.gap >= -SLACK,
    },
    {
      what: `store:default:hybrid is within ${SLACK} point of the better of store:default:text and store:default:vector, or above, for every preset`,
      measured: `worst ${signed(wHybrid.gap)} (${wHybrid.where})`,
      met: wHybrid.gap >= -SLACK,
    },
  ];
  const body = [
    about,
    table(['corpus', 'preset', ...SEARCH_MODES.map((m) => `${m}: store / exact`), 'store text − bm25', 'store hybrid − better store part'], rows),
    'Mean over the presets, store / exact:',
    table(['corpus', ...SEARCH_MODES.map((m) => `${m}: store / exact`)], byCorpus),
    checks.map((c) => `- ${c.met ? 'met' : 'not met'}: ${c.what}: ${c.measured}`).join('\n'),
  ].join('\n\n');
  return { title: TITLE, body, checks };
}

export const qualityStoreSuite: CustomSuite = {
  kind: 'custom',
  name: 'quality-store',
  title: TITLE,
  async run(): Promise<Section> {
    const found = qualityDirs(TITLE);
    if ('section' in found) return found.section;
    const { dirs } = found;
    const corpora = readCorpora(dirs);
    const cells = await measure(corpora, (l) => process.stderr.write(`${l}\n`));
    const about =
      `Each corpus its own index (${corpora.map((c) => `${c.id} ${c.questions.length} questions`).join(', ')}), every shipped preset (presets/retrieval/), ` +
      `k = ${K}, recall@5 in % (mean over the corpus's questions, chunks placed by text search). Each preset's chunks are written to the default store ` +
      `(the embedded LanceDB, a scratch collection, settled before the questions) and searched in each mode, as \`chunkd eval --retriever store:default:MODE\` ` +
      `does: **text** is LanceDB's full-text index (its own BM25 and tokenizer) over the chunks' index text, **vector** its vector search with the built-in ` +
      `model ${EMBEDDED_MODEL} (exact: these collections are below the vector index's threshold), **hybrid** the two fused by the built-in model's rule ` +
      `(kernel/fusion.ts). Beside each, after the slash, the exact retriever of that mode on the same chunks (bm25, embeddings, hybrid). The fusion rule has ` +
      `no fitted weight for this model (text weight 1: "Search modes held out"). The full-text index's words (bm25's: no stemming, no stop words) were ` +
      `chosen on these same cells, against LanceDB's defaults, so as a comparison of tokenizers they are in-sample; the rule itself (the store ranks ` +
      `with the evaluation's words) was not fitted to them.`;
    const section = storeModesSection(cells, about);
    splice(section);
    return section;
  },
};
