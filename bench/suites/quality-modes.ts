/**
 * Search modes held out: bench/quality/modes.ts and modes-report.ts over every corpus of the data
 * folders CHUNKD_QUALITY_DATA names (several joined with the path delimiter, e.g. `--data A:B`).
 * Each question's lists are cached in bench/.cache/quality-modes/ (keyed by corpus, questions,
 * pipeline, plugin source and the index-text code). Whenever the suite runs, its section is
 * written into bench/results.md in place.
 */
import type { CustomSuite, Section } from '../harness.js';
import { readCorpora } from '../quality/folds.js';
import { GRID } from '../quality/grid.js';
import { collect, ownIndexes, sharedIndex, VARIANTS, type Variant } from '../quality/modes.js';
import { modesSection, TITLE } from '../quality/modes-report.js';
import { readReference } from '../quality/reference.js';
import type { Figures } from '../quality/select.js';
import { presetFiles } from '../../scripts/presets-table.js';
import { qualityDirs, splice } from './quality.js';

/** The rows of the benchmark's own chunkers in a folder's one-index table (text search), as figures per retriever. */
function chromaRows(dir: string): Map<string, Figures> {
  const t = readReference(dir).text;
  const out = new Map<string, Figures>();
  if (!t) return out;
  const col = (name: string) => t.header.indexOf(name) - 1;
  const [br, bi, mr, mi] = ['BM25 recall', 'BM25 IoU', 'glove recall', 'glove IoU'].map(col);
  if ([br, bi, mr, mi].some((i) => i! < 0)) return out;
  const n = (cell: string | undefined) => Number.parseFloat(cell ?? 'NaN');
  for (const [name, cells] of t.rows) {
    if (!name.startsWith('Chroma ')) continue;
    out.set(name, { bm25: { recall: n(cells[br!]), iou: n(cells[bi!]) }, embeddings: { recall: n(cells[mr!]), iou: n(cells[mi!]) } });
  }
  return out;
}

export const qualityModesSuite: CustomSuite = {
  kind: 'custom',
  name: 'quality-modes',
  title: TITLE,
  async run(options): Promise<Section> {
    const found = qualityDirs(TITLE);
    if ('section' in found) return found.section;
    const { dirs } = found;
    const corpora = readCorpora(dirs);
    if (corpora.length < 2)
      return { title: TITLE, body: `Not measured: leaving one corpus out needs at least two corpora (found ${corpora.length}).`, checks: [] };
    const log = (l: string) => process.stderr.write(`${l}\n`);
    const files = presetFiles();
    const presets = files.map((p) => ({ name: p.file.replace(/\.json$/, ''), steps: p.pipeline.steps as (typeof GRID)[number]['steps'] }));
    const own = await collect(ownIndexes(corpora), presets, Object.keys(VARIANTS) as Variant[], log);
    const shared = await collect([sharedIndex('every corpus', corpora)], presets, ['span', 'name'], log);
    const referenceIndexes = [];
    for (const dir of dirs) {
      const rows = chromaRows(dir);
      const here = readCorpora([dir]);
      if (!rows.size || here.length < 2) continue;
      referenceIndexes.push({ collected: await collect([sharedIndex(here.map((c) => c.id).join('+'), here)], presets, ['span'], log), rows });
    }
    const grid = await collect(ownIndexes(corpora), GRID, ['span'], log);
    const gridOf = (steps: unknown) => GRID.find((g) => JSON.stringify(g.steps) === JSON.stringify(steps))?.name;
    const section = modesSection({
      corpora,
      own,
      shared,
      referenceIndexes,
      grid,
      gridNames: GRID.map((g) => g.name),
      presets: presets.map((p) => ({ name: p.name, grid: gridOf(p.steps) })),
    });
    if (!options.quick) splice(section);
    return section;
  },
};
