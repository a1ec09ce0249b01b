/**
 * Retrieval quality held out: bench/quality/heldout.ts over every corpus of the data folders
 * CHUNKD_QUALITY_DATA names (several joined with the path delimiter, e.g. `--data A:B`). Figures
 * are cached in bench/.cache/quality-heldout.json (keyed by corpus text, pipeline steps and the
 * plugins' source). Whenever the suite runs, its section is written into
 * bench/results.md in place.
 */
import { fileURLToPath } from 'node:url';
import type { CustomSuite, Section } from '../harness.js';
import { readCorpora } from '../quality/folds.js';
import { GRID } from '../quality/grid.js';
import { foldData, heldOut, measureGrid } from '../quality/heldout.js';
import { heldOutSection } from '../quality/heldout-report.js';
import { measurer } from '../quality/measure.js';
import { presetFiles } from '../../scripts/presets-table.js';
import { qualityDirs, splice } from './quality.js';

const TITLE = 'Retrieval quality held out (leave one corpus out)';
const CACHE = fileURLToPath(new URL('../.cache/quality-heldout.json', import.meta.url));

export const qualityHeldOutSuite: CustomSuite = {
  kind: 'custom',
  name: 'quality-heldout',
  title: TITLE,
  async run(options): Promise<Section> {
    const found = qualityDirs(TITLE);
    if ('section' in found) return found.section;
    const { dirs } = found;
    const corpora = readCorpora(dirs);
    if (corpora.length < 2)
      return { title: TITLE, body: `Not measured: leaving one corpus out needs at least two corpora (found ${corpora.length}).`, checks: [] };
    const log = (l: string) => process.stderr.write(`${l}\n`);
    const measured = await measureGrid(corpora, GRID, CACHE, measurer, log);
    const ids = corpora.map((c) => c.id);
    const names = GRID.map((g) => g.name);
    const byLocate = Object.fromEntries(
      (['text', 'offsets'] as const).map((l) => {
        const fold = foldData(corpora, GRID, measured, l);
        return [l, { fold, folds: heldOut(ids, names, fold) }];
      }),
    ) as Parameters<typeof heldOutSection>[4];
    const section = heldOutSection(
      TITLE,
      corpora,
      GRID,
      measured,
      byLocate,
      presetFiles().map((p) => ({ file: p.file, steps: p.pipeline.steps })),
    );
    if (!options.quick) splice(section);
    return section;
  },
};
