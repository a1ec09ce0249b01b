import type { Static } from '#typebox';
import { closest, configError, loadTokenizer, tokensIn, upperBound, type ChunkerImpl, type Span } from '../../kernel/index.js';
import { detectLanguage } from './detect.js';
import { parserFor, parseWith } from './grammars.js';
import type { CodeConfig } from './index.js';
import { allKeys, AUTO, findLanguage, languageNames } from './languages.js';
import type { Atom } from './pieces.js';
import { splitLines, splitTree } from './split.js';
import { errorRanges } from './tree-errors.js';

export async function create(config: Static<typeof CodeConfig>): Promise<ChunkerImpl> {
  const fixed = config.language.trim().toLowerCase() === AUTO ? undefined : resolve(config.language);
  const tokenizer = await loadTokenizer(config.tokenizer);
  if (fixed) await parserFor(fixed); // a grammar that fails to load fails the config, not each text
  return {
    async chunk(text) {
      const language = fixed ?? (await detectLanguage(text));
      const src = { text, ends: tokenizer.ends(text), size: config.chunk_size };
      const parsed = await parseWith(language, text); // undefined: cut at lines, has_error with include_nodes
      try {
        const chunks = parsed ? splitTree(parsed.rootNode, src) : splitLines(src);
        const spans: Span[] = chunks.map((c) => ({ start: c.start, end: c.end, tokenCount: tokensIn(src.ends, c.start, c.end) }));
        if (config.include_nodes) {
          const errors: [number, number][] = parsed ? errorRanges(parsed.rootNode) : [[0, text.length]];
          addMetadata(spans, chunks, text, language, errors);
        }
        return spans;
      } finally {
        parsed?.delete();
      }
    },
  };
}

function resolve(language: string): string {
  const spec = findLanguage(language);
  if (!spec) {
    const guess = closest(language, allKeys());
    const hint = guess ? ` Did you mean '${guess}'?` : '';
    throw configError(`Unknown language '${language}'.${hint} Valid: ${languageNames().join(', ')}; aliases such as js, ts, py, c++, cs, sh and rb also work.`);
  }
  return spec.name;
}

/** node_types, start_line/end_line of the chunk's first and last non-blank characters, has_error, language. */
function addMetadata(spans: Span[], chunks: Atom[], text: string, language: string, errors: [number, number][]): void {
  const newlines = Uint32Array.from(newlinePositions(text));
  const lineOf = (i: number) => 1 + (i > 0 ? upperBound(newlines, i - 1) : 0);
  const broken = chunksWithErrors(chunks, errors, text.length);
  spans.forEach((s, i) => {
    const first = text.slice(s.start, s.end).search(/\S/);
    const from = first < 0 ? s.start : s.start + first;
    let to = s.end - 1;
    while (to > from && /\s/.test(text[to]!)) to--;
    s.metadata = { node_types: [...new Set(chunks[i]!.types)], start_line: lineOf(from), end_line: lineOf(to), has_error: broken[i]!, language };
  });
}

function* newlinePositions(text: string): Generator<number> {
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) yield i;
}

/** Which chunks overlap an error range (a zero-width MISSING node belongs to the chunk it sits in). */
function chunksWithErrors(chunks: Atom[], errors: [number, number][], length: number): boolean[] {
  const marks = chunks.map(() => false);
  const starts = Uint32Array.from(chunks, (c) => c.start);
  for (const [a, b] of errors) {
    const at = Math.min(a, length - 1);
    for (let i = Math.max(0, upperBound(starts, at) - 1); i < chunks.length && chunks[i]!.start < Math.max(b, at + 1); i++) marks[i] = true;
  }
  return marks;
}
