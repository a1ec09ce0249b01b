/**
 * Corpora from installed npm packages, so every machine that ran `npm install` benches the same text:
 * English prose from nlp-corpus, JavaScript sources and READMEs from node_modules. Each is cut (or
 * cycled) to a requested size in UTF-8 bytes and is deterministic.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../kernel/paths.js';

const NODE_MODULES = join(ROOT, 'node_modules');

/** Sentences per paragraph: paragraphs give the recursive chunker a structure to find. */
const PARAGRAPH = 6;

let sentences: string[] | undefined;
function allSentences(): string[] {
  if (sentences) return sentences;
  const dir = join(NODE_MODULES, 'nlp-corpus', 'builds');
  const files = readdirSync(dir)
    .filter((f) => /^doc-\d+\.json$/.test(f))
    .sort((a, b) => num(a) - num(b));
  sentences = files
    .flatMap((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as string[])
    .map((s) => s.trim())
    .filter(Boolean);
  return sentences;
}
const num = (f: string) => Number(/\d+/.exec(f)![0]);

/** English prose (lyrics, transcripts, fiction, speeches…, with emoji and odd unicode), paragraphs of six sentences. */
export function prose(bytes: number, offset = 0): string {
  const all = allSentences();
  const parts: string[] = [];
  let size = 0;
  for (let i = offset; size < bytes; i++) {
    const s = all[i % all.length]!;
    const sep = i % PARAGRAPH === PARAGRAPH - 1 ? '\n\n' : ' ';
    parts.push(s, sep);
    size += Buffer.byteLength(s) + sep.length;
  }
  return parts.join('');
}

/** Packages whose hand-written JavaScript makes the code corpus (no minified bundles). */
const CODE_PACKAGES = [
  'koa/lib',
  '@koa/router/lib',
  'piscina/dist',
  'ajv/dist/compile',
  'ajv/dist/vocabularies',
  'autocannon/lib',
  'fast-check/lib/esm/check',
  'sqlite/build',
];

/** Real JavaScript source files from node_modules, whole files, until `bytes` is reached. */
export function codeFiles(bytes: number): string[] {
  const files = CODE_PACKAGES.flatMap((p) => walk(join(NODE_MODULES, p), (f) => f.endsWith('.js') && !f.endsWith('.min.js')));
  return take(
    files.map((f) => readFileSync(f, 'utf8')).filter((t) => t.length > 200 && t.length < 200_000),
    bytes,
  );
}

/** README.md files of the installed packages, whole, until `bytes` is reached. */
export function markdownDocs(bytes: number): string[] {
  const dirs = readdirSync(NODE_MODULES)
    .sort()
    .flatMap((d) =>
      d.startsWith('@')
        ? readdirSync(join(NODE_MODULES, d))
            .sort()
            .map((s) => join(d, s))
        : [d],
    );
  const readmes = dirs.map((d) => join(NODE_MODULES, d, 'README.md')).filter((f) => exists(f));
  return take(
    readmes.map((f) => readFileSync(f, 'utf8')).filter((t) => t.trim().length > 500),
    bytes,
  );
}

function take(texts: string[], bytes: number): string[] {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes && texts.length; i++) {
    const t = texts[i % texts.length]!;
    out.push(t);
    size += Buffer.byteLength(t);
  }
  return out;
}

function walk(dir: string, keep: (f: string) => boolean): string[] {
  if (!exists(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((e) => {
      const p = join(dir, e);
      return statSync(p).isDirectory() ? walk(p, keep) : keep(p) ? [p] : [];
    });
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}
