/**
 * The stores bench's corpus: real text this machine has, chunked by a shipped retrieval preset and
 * embedded with the built-in model, cached under bench/.cache/stores/ so that a rerun reads it back.
 *
 * Text: the benchmark corpora the quality setting names (CHUNKD_QUALITY_DATA), the READMEs and docs
 * of the installed npm packages, /usr/share/doc (plain, gzipped and HTML files) and the English
 * manual pages (roff markup dropped). Files are read whole, identical files kept once, and taken in
 * an order shuffled by a hash of their path, so any prefix of the chunks mixes every source.
 * Chunks: the preset's chunker over each file; chunks under 500 or over 2,000 characters are left
 * out (a file's short tail), so every stored row carries a real chunk's text. Vectors: the embedded
 * default model (chunkd/glove-sif-100d), 100 dimensions.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, statSync, writeSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { discover } from '../../kernel/discovery.js';
import { EMBEDDED_MODEL } from '../../kernel/fields.js';
import { idsReady } from '../../kernel/ids.js';
import { inline } from '../../kernel/engine/index.js';
import { benchRunner } from '../chunkd.js';
import { ROOT } from '../../kernel/paths.js';
import { loadEmbedder } from '../../kernel/embeddings/embedder.js';
import { stepsCandidate, type RuntimeDeps } from '../../service/evaluation/runtime.js';
import { validateSteps, type Step } from '../../service/pipelines/steps.js';
import { resolveSettings } from '../../service/settings.js';
import { dataDirs } from '../quality/folds.js';
import { readBenchmark } from '../../service/evaluation/benchmark-files.js';

export const PRESET = 'small-token-200-overlap-100';
export const MIN_CHARS = 500;
export const MAX_CHARS = 2000;
const CACHE = join(ROOT, 'bench', '.cache', 'stores');
const NODE_MODULES = join(ROOT, 'node_modules');

export interface CorpusChunk {
  document: string;
  text: string;
  start_index: number;
  end_index: number;
  token_count: number;
  metadata: Record<string, unknown>;
}

export interface CorpusInfo {
  dir: string;
  count: number;
  dimension: number;
  model: string;
  preset: string;
  documents: number;
  textBytes: number;
  bySource: Record<string, number>;
  meanChars: number;
  /** Every source was read: the machine has no text for more chunks. */
  exhausted: boolean;
}

export interface Query {
  text: string;
  vector: Float32Array;
}

interface Source {
  source: string;
  path: string;
  read(): string | undefined;
}

/** What the corpus is made of; the data folders are the quality setting's. */
function sources(data: string[]): Source[] {
  const out: Source[] = [];
  for (const dir of data) {
    const corpora = join(dir, 'corpora');
    if (!existsSync(corpora)) continue;
    for (const f of readdirSync(corpora).sort())
      if (f.endsWith('.md')) out.push({ source: 'benchmark', path: join(corpora, f), read: () => readFileSync(join(corpora, f), 'utf8') });
  }
  for (const f of walk(NODE_MODULES, (p) => /\.(md|markdown|txt|rst)$/i.test(p) && !/\/(test|tests|__tests__|fixtures?)\//i.test(p)))
    out.push({ source: 'node_modules', path: f, read: () => plain(f) });
  const docs = walk('/usr/share/doc', (p) => !/\.(png|gif|jpe?g|svg|ico|css|js|json|json\.gz|pdf|woff2?|ttf)$/i.test(p));
  const seenMd = new Set(docs.filter((p) => p.endsWith('.md')).map((p) => p.slice(0, -3)));
  for (const f of docs) if (!(f.endsWith('.html') && seenMd.has(f.slice(0, -5)))) out.push({ source: 'usr-share-doc', path: f, read: () => plain(f) });
  for (const section of ['man1', 'man2', 'man3', 'man4', 'man5', 'man6', 'man7', 'man8']) {
    for (const f of walk(join('/usr/share/man', section), () => true)) out.push({ source: 'man', path: f, read: () => roff(plain(f)) });
  }
  return out;
}

/**
 * Source code with its comments, after the documentation (the documentation on this machine makes
 * about 565,000 chunks): the installed packages' TypeScript declarations and hand-written
 * JavaScript, C headers, Python's standard library.
 */
function codeSources(): Source[] {
  const minified = (t: string) => t.length / Math.max(1, t.split('\n').length) > 200;
  const code = (source: string) => (f: string) => ({
    source,
    path: f,
    read: () => {
      const t = plain(f);
      return t && !minified(t) ? t : undefined;
    },
  });
  return [
    ...walk(
      NODE_MODULES,
      (p) => /\.(d\.ts|ts|js|mjs|cjs)$/.test(p) && !/\.min\.js$|\/(test|tests|__tests__|fixtures?)\//i.test(p) && statSync(p).size < 1_000_000,
    ).map(code('node_modules-code')),
    ...walk('/usr/include', (p) => p.endsWith('.h')).map(code('c-headers')),
    ...walk('/usr/lib/python3.11', (p) => p.endsWith('.py') && !/\/(test|tests|idle_test)\//.test(p)).map(code('python')),
  ];
}

/** A file's text, gunzipped and with HTML tags dropped; undefined when it is not text. */
function plain(path: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
    if (path.endsWith('.gz')) bytes = gunzipSync(bytes);
  } catch {
    return undefined;
  }
  if (bytes.includes(0)) return undefined;
  let text = bytes.toString('utf8');
  if (/\.html?(\.gz)?$/i.test(path)) text = html(text);
  return text.includes('\uFFFD') && (text.match(/\uFFFD/g)?.length ?? 0) > text.length / 200 ? undefined : text;
}

const html = (t: string) =>
  t
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<br\s*\/?>|<\/(p|div|h\d|li|tr|pre)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n');

/** A manual page's words: macro lines become their arguments, font escapes go. */
function roff(t: string | undefined): string | undefined {
  if (!t) return t;
  return t
    .split('\n')
    .filter((l) => !l.startsWith('.\\"') && !l.startsWith('\'\\"'))
    .map((l) => (l.startsWith('.') ? l.replace(/^\.\s*[A-Za-z]{1,3}\s*/, '').replace(/^\.\S*\s*/, '') : l))
    .join('\n')
    .replace(/\\f[BIRP]|\\f\(..|\\\(..|\\[&|^%]|\\-/g, (m) => (m === '\\-' ? '-' : ''))
    .replace(/\n{3,}/g, '\n\n');
}

function walk(dir: string, keep: (f: string) => boolean): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const p = join(dir, e);
    let s;
    try {
      s = statSync(p);
    } catch {
      return [];
    }
    return s.isDirectory() ? walk(p, keep) : s.isFile() && s.size > 0 && keep(p) ? [p] : [];
  });
}

const hash = (s: string) => createHash('sha1').update(s).digest();

/** The cache folder of the corpus from these data folders (a corpus of N chunks serves every smaller size: its first chunks). */
function cacheDir(data: string[]): string {
  const key = hash(JSON.stringify([PRESET, EMBEDDED_MODEL, data, MIN_CHARS, MAX_CHARS, 4]))
    .toString('hex')
    .slice(0, 12);
  return join(CACHE, `${PRESET}-${key}`);
}

const log = (l: string) => process.stderr.write(`${l}\n`);

/** The corpus of `target` chunks, built (once) and cached: chunks.jsonl, vectors.f32 (row-major float32) and info.json. */
export async function corpus(target: number, dataSetting = process.env.CHUNKD_QUALITY_DATA): Promise<CorpusInfo> {
  await idsReady; // the rows' ids (bench/stores/rows.ts) are made synchronously from here on
  const data = dataDirs(dataSetting, ':');
  const dir = process.env.CHUNKD_STORES_CORPUS ?? cacheDir(data);
  const infoFile = join(dir, 'info.json');
  if (existsSync(infoFile)) {
    const cached = { ...(JSON.parse(readFileSync(infoFile, 'utf8')) as CorpusInfo), dir };
    if (cached.count >= target || cached.exhausted) return cached;
  }
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const settings = resolveSettings(
    {},
    { ...process.env, CHUNKD_MAX_TEXT_CHARS: String(256 * 1024 * 1024), CHUNKD_MAX_OUTPUT_BYTES: String(2 ** 31), CHUNKD_MAX_CHUNKS: String(10_000_000) },
  );
  const registry = await discover(settings.pluginsDir);
  const deps: RuntimeDeps = { registry, executor: inline, settings };
  const preset = JSON.parse(readFileSync(join(ROOT, 'presets', 'retrieval', `${PRESET}.json`), 'utf8')) as { steps: Step[] };
  const { steps } = await stepsCandidate(PRESET, await validateSteps(registry, preset.steps, [PRESET]), 'codepoint', deps);
  const runner = benchRunner();
  const embedder = await loadEmbedder(EMBEDDED_MODEL);

  // The benchmark corpora first (so that its questions find their text at every size), then the
  // documentation shuffled, then source code shuffled: only sizes past the documentation hold code.
  const tier = (s: Source) => (s.source === 'benchmark' ? 0 : 1);
  const docs = sources(data).map((s) => ({ s, order: hash(s.path).readUInt32BE(0) }));
  docs.sort((a, b) => tier(a.s) - tier(b.s) || a.order - b.order);
  const all = [
    ...docs,
    ...codeSources()
      .map((s) => ({ s, order: hash(s.path).readUInt32BE(0) }))
      .sort((a, b) => a.order - b.order),
  ];
  const chunksOut = openSync(join(dir, 'chunks.jsonl.part'), 'w');
  const vectorsOut = openSync(join(dir, 'vectors.f32.part'), 'w');
  const seen = new Set<string>();
  const bySource: Record<string, number> = {};
  let count = 0;
  let documents = 0;
  let textBytes = 0;
  let chars = 0;
  for (const { s } of all) {
    if (count >= target) break;
    const text = s.read();
    if (!text || text.trim().length < MIN_CHARS) continue;
    const key = hash(text).toString('hex');
    if (seen.has(key)) continue;
    seen.add(key);
    const [chunks] = await runner.chunks({ steps, unit: 'codepoint', returnType: 'chunks' }, [text]);
    const kept = chunks!.filter((c) => c.text.length >= MIN_CHARS && c.text.length <= MAX_CHARS && c.text.trim().length > 0).slice(0, target - count);
    if (!kept.length) continue;
    const document = s.source === 'benchmark' ? `benchmark/${relative(join(s.path, '..', '..'), s.path)}` : s.path.replace(/^\//, '');
    const vectors = await embedder.embed(kept.map((c) => c.text));
    const lines = kept.map((c, i) =>
      JSON.stringify({
        document,
        text: c.text,
        start_index: c.start_index,
        end_index: c.end_index,
        token_count: c.token_count,
        metadata: { source: s.source, path: document, chunk: i, preset: PRESET },
      } satisfies CorpusChunk),
    );
    writeSync(chunksOut, `${lines.join('\n')}\n`);
    const buf = new Float32Array(kept.length * embedder.dimension);
    vectors.forEach((v, i) => buf.set(v, i * embedder.dimension));
    writeSync(vectorsOut, new Uint8Array(buf.buffer));
    count += kept.length;
    documents++;
    textBytes += Buffer.byteLength(text);
    chars += kept.reduce((n, c) => n + c.text.length, 0);
    bySource[s.source] = (bySource[s.source] ?? 0) + kept.length;
    if (documents % 500 === 0)
      log(`  corpus: ${count.toLocaleString('en')} chunks from ${documents} files (${Math.round((performance.now() - started) / 1000)} s)`);
  }
  closeSync(chunksOut);
  closeSync(vectorsOut);
  if (count < target) log(`  corpus: the machine's text made ${count.toLocaleString('en')} chunks, fewer than the ${target.toLocaleString('en')} asked`);
  renameSync(join(dir, 'chunks.jsonl.part'), join(dir, 'chunks.jsonl'));
  renameSync(join(dir, 'vectors.f32.part'), join(dir, 'vectors.f32'));
  const info: CorpusInfo = {
    dir,
    count,
    exhausted: count < target,
    dimension: embedder.dimension,
    model: EMBEDDED_MODEL,
    preset: PRESET,
    documents,
    textBytes,
    bySource,
    meanChars: Math.round(chars / Math.max(1, count)),
  };
  await writeFileAtomic(infoFile, JSON.stringify(info, null, 2));
  log(`  corpus: built in ${Math.round((performance.now() - started) / 1000)} s: ${JSON.stringify(info)}`);
  return info;
}

async function writeFileAtomic(path: string, text: string): Promise<void> {
  const fd = openSync(`${path}.part`, 'w');
  writeSync(fd, text);
  closeSync(fd);
  renameSync(`${path}.part`, path);
}

/**
 * The corpus's chunks in order, `size` at a time, each with its vector, read from the cache as they
 * are written (never all in memory). Plain blocking reads: the bench times the writes, not this.
 */
export function* batches(info: CorpusInfo, limit: number, size: number): Generator<{ chunk: CorpusChunk; vector: Float32Array }[]> {
  const text = openSync(join(info.dir, 'chunks.jsonl'), 'r');
  const vectors = openSync(join(info.dir, 'vectors.f32'), 'r');
  const rowBytes = info.dimension * 4;
  const block = Buffer.allocUnsafe(8 << 20);
  let rest = '';
  let i = 0;
  let batch: { chunk: CorpusChunk; vector: Float32Array }[] = [];
  try {
    for (;;) {
      const n = readSync(text, block, 0, block.length, null);
      const lines = (rest + block.toString('utf8', 0, n)).split('\n');
      rest = n ? lines.pop()! : '';
      for (const line of lines) {
        if (!line || i >= limit) continue;
        const vector = new Float32Array(info.dimension);
        readSync(vectors, new Uint8Array(vector.buffer), 0, rowBytes, i * rowBytes);
        batch.push({ chunk: JSON.parse(line) as CorpusChunk, vector });
        i++;
        if (batch.length === size) {
          yield batch;
          batch = [];
        }
      }
      if (!n || i >= limit) break;
    }
    if (batch.length) yield batch;
  } finally {
    closeSync(text);
    closeSync(vectors);
  }
}

/**
 * The queries: the benchmark's questions (questions.csv of each data folder), embedded with the same
 * model. Without a data folder, sentences of English prose from nlp-corpus stand in (said in the report).
 */
export async function queries(dataSetting = process.env.CHUNKD_QUALITY_DATA): Promise<{ from: string; queries: Query[] }> {
  const data = dataDirs(dataSetting, ':').filter((d) => existsSync(join(d, 'questions.csv')));
  const embedder = await loadEmbedder(EMBEDDED_MODEL);
  let texts: string[];
  let from: string;
  if (data.length) {
    texts = data.flatMap((d) => readBenchmark(join(d, 'corpora'), join(d, 'questions.csv')).questions.map((q) => q.question));
    from = `the benchmark's ${texts.length} questions (questions.csv of ${data.length} data folder${data.length > 1 ? 's' : ''})`;
  } else {
    const builds = join(NODE_MODULES, 'nlp-corpus', 'builds');
    const sentences = (JSON.parse(readFileSync(join(builds, 'doc-1.json'), 'utf8')) as string[]).filter((s) => s.split(/\s+/).length >= 8);
    texts = sentences.filter((_, i) => i % 7 === 0).slice(0, 300);
    from = `${texts.length} English sentences of nlp-corpus (no benchmark data folder was set: CHUNKD_QUALITY_DATA)`;
  }
  const vectors = await embedder.embed(texts);
  return { from, queries: texts.map((text, i) => ({ text, vector: vectors[i]! })) };
}
