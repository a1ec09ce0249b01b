/**
 * Retrieval quality on Chroma's chunking evaluation: chunkd's chunkers (and the configurations in
 * bench/quality/candidates.ts) scored with the benchmark's metrics, beside the reference rows that
 * ship with the data. The data folder is a setting: CHUNKD_QUALITY_DATA or `npm run bench -- --data
 * DIR quality`, a folder with corpora/<corpus_id>.md, questions.csv and optionally
 * reference-results.md. Without it the section says so. Whenever the suite runs, its section is
 * also written into bench/results.md in place (a full run of every suite rewrites the whole file).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataDirs } from '../quality/folds.js';
import type { Check, CustomSuite, Section } from '../harness.js';
import { CANDIDATES_NOTE, qualitySection } from '../quality/report.js';
import { CHUNKERS, EXTRA } from '../quality/candidates.js';
import { measure } from '../quality/measure.js';
import { readReference } from '../quality/reference.js';

const TITLE = 'Retrieval quality (Chroma chunking evaluation)';
const RESULTS = fileURLToPath(new URL('../results.md', import.meta.url));

export const qualitySuite: CustomSuite = {
  kind: 'custom',
  name: 'quality',
  title: TITLE,
  async run(options): Promise<Section> {
    const dataDir = process.env.CHUNKD_QUALITY_DATA;
    let section: Section;
    if (!dataDir || !existsSync(dataDir)) {
      const why = dataDir ? `the data folder ${dataDir} does not exist` : 'no data folder was given';
      section = {
        title: TITLE,
        body: `Not measured: ${why}. Set CHUNKD_QUALITY_DATA (or pass --data DIR) to a copy of the benchmark's corpora and questions. ${CANDIDATES_NOTE}`,
        checks: [],
      };
    } else {
      const candidates = options.quick ? [...CHUNKERS.slice(0, 1), ...EXTRA] : [...CHUNKERS, ...EXTRA];
      const log = (l: string) => process.stderr.write(`${l}\n`);
      const measured = await measure(dataDir, candidates, log);
      section = qualitySection(
        TITLE,
        measured,
        readReference(dataDir),
        EXTRA.map((c) => c.name),
      );
    }
    if (!options.quick) splice(section);
    return section;
  },
};

/** Put the section into bench/results.md: replace the one there, or add it before "Not benchmarked" (or at the end). */
export function splice(section: Section): void {
  if (!existsSync(RESULTS)) return;
  const md = readFileSync(RESULTS, 'utf8');
  const text = `## ${section.title}\n\n${section.body}\n\n`;
  const start = md.indexOf(`## ${section.title}\n`);
  let out: string;
  if (start >= 0) {
    const next = md.indexOf('\n## ', start + 3);
    out = md.slice(0, start) + text + (next >= 0 ? md.slice(next + 1) : '');
  } else {
    const before = md.indexOf('## Not benchmarked');
    out = before >= 0 ? md.slice(0, before) + text + md.slice(before) : `${md.trimEnd()}\n\n${text}`;
  }
  writeFileSync(RESULTS, out);
  checksNote(section.checks);
}

function checksNote(checks: Check[]): void {
  for (const c of checks) process.stderr.write(`  ${c.met ? 'met' : 'NOT met'}: ${c.what} — ${c.measured}\n`);
}

/**
 * The data folders CHUNKD_QUALITY_DATA names (several joined with the path delimiter), or, when
 * none is given or one does not exist, the section that says so.
 */
export function qualityDirs(title: string): { dirs: string[] } | { section: Section } {
  const dirs = dataDirs(process.env.CHUNKD_QUALITY_DATA, delimiter);
  const absent = dirs.filter((d) => !existsSync(d));
  if (dirs.length && !absent.length) return { dirs };
  const why = absent.length ? `the data folder ${absent.join(', ')} does not exist` : 'no data folder was given';
  return {
    section: {
      title,
      body: `Not measured: ${why}. Set CHUNKD_QUALITY_DATA (or pass --data DIR${delimiter}DIR2) to the benchmark's data folders.`,
      checks: [],
    },
  };
}
