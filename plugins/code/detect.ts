import { parseWith } from './grammars.js';
import { errorRanges } from './tree-errors.js';
import { DEFAULT_LANGUAGE, LANGUAGES, findLanguage } from './languages.js';

/** How much of the source `auto` looks at: enough to see its idioms, small enough to parse a few times. */
const SAMPLE_CHARS = 16 * 1024;
/** Parsed candidates: the best-hinted languages, as long as they score at least half the best. */
const MAX_CANDIDATES = 4;

/**
 * `language: "auto"`: deterministic and cheap.
 * 1. A `#!` line naming a known interpreter decides.
 * 2. Otherwise each language scores one point per distinctive token of its table entry found in
 *    the first 16 KB; no point anywhere means the default language.
 * 3. The best-scoring candidates (up to 4, each scoring at least half the best) parse the sample,
 *    and the one with the fewest syntax errors wins; ties go to the higher score, then to the
 *    order of the language table.
 */
export async function detectLanguage(text: string): Promise<string> {
  const sample = head(text);
  const bang = /^#!\s*(?:\/\S*\/)?(?:env\s+(?:-\S+\s+)*)?([\w.+-]+)/.exec(sample);
  if (bang) {
    const interpreter = bang[1]!.replace(/[\d.]+$/, '');
    const spec = LANGUAGES.find((l) => l.interpreters?.some((i) => i.replace(/[\d.]+$/, '') === interpreter));
    if (spec) return spec.name;
  }
  const scored = LANGUAGES.map((l, order) => ({ name: l.name, order, score: l.hints.reduce((n, re) => n + (re.test(sample) ? 1 : 0), 0) }));
  const best = Math.max(...scored.map((s) => s.score));
  if (best === 0) return findLanguage(DEFAULT_LANGUAGE)!.name;
  const candidates = scored
    .filter((s) => s.score * 2 >= best)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, MAX_CANDIDATES);
  if (candidates.length === 1) return candidates[0]!.name;
  const ranked = [];
  for (const c of candidates) ranked.push({ ...c, errors: await errorCount(c.name, sample) });
  ranked.sort((a, b) => a.errors - b.errors || b.score - a.score || a.order - b.order);
  return ranked[0]!.name;
}

async function errorCount(language: string, sample: string): Promise<number> {
  const tree = await parseWith(language, sample);
  if (!tree) return Infinity; // the grammar failed on this text: it is not the language
  try {
    return errorRanges(tree.rootNode).length;
  } finally {
    tree.delete();
  }
}

/** The first SAMPLE_CHARS, cut after a line so the last construct is not cut in half. */
function head(text: string): string {
  if (text.length <= SAMPLE_CHARS) return text;
  const nl = text.lastIndexOf('\n', SAMPLE_CHARS);
  return text.slice(0, nl > 0 ? nl + 1 : SAMPLE_CHARS);
}
