import { join } from 'node:path';
import { ChunkdError } from '../../errors.js';
import { MAX_JSON_BYTES, readModelFile } from '../../model-files.js';
import { loadHfTokenizer } from '../../tokenizers/index.js';
import type { Embedder } from '../embedder-contract.js';
import { readSafetensors, type Tensor } from '../safetensors.js';
import { normalize } from '../vectors.js';

/**
 * A Model2Vec static model directory (model.safetensors + tokenizer.json + config.json): a text's
 * vector is the mean of its tokens' rows (unknown tokens dropped), each row scaled by its
 * `weights` entry when the file has one (chunkd's own int8 model stores the row scale times the
 * SIF weight there), then normalised when config.json says so (the default).
 */
export async function loadModel2Vec(dir: string, name: string): Promise<Embedder> {
  const bad = (why: string) => new ChunkdError('BAD_REQUEST', `Cannot load Model2Vec model '${name}' from ${dir}: ${why}`);
  const tokenizer = await loadHfTokenizer(join(dir, 'tokenizer.json'));
  if (!tokenizer) throw bad(`tokenizer.json is missing or unusable (a Hugging Face tokenizer.json of at most ${MAX_JSON_BYTES / 1024 ** 2} MiB is expected).`);
  const configBytes = await readModelFile(join(dir, 'config.json'), MAX_JSON_BYTES);
  let config: { normalize?: boolean } = {};
  try {
    if (configBytes) config = JSON.parse(configBytes.toString('utf8')) as { normalize?: boolean };
  } catch {
    throw bad('config.json is not valid JSON.');
  }
  let tensors: Map<string, Tensor>;
  try {
    tensors = await readSafetensors(join(dir, 'model.safetensors'));
  } catch (e) {
    throw bad(`model.safetensors is unreadable (${e instanceof Error ? e.message : 'unknown error'}).`);
  }
  const table = tensors.get('embeddings') ?? tensors.get('embedding') ?? [...tensors.values()].find((t) => t.shape.length === 2);
  if (!table || table.shape.length !== 2) throw bad('model.safetensors has no 2-D "embeddings" tensor.');
  const [rows, dim] = table.shape as [number, number];
  const data = table.data;
  const weights = tensors.get('weights')?.data;
  const mapping = tensors.get('mapping')?.data;
  const unk = tokenizer.unkId;
  const unit = config.normalize ?? true;

  const embedOne = (text: string): Float32Array => {
    const v = new Float32Array(dim);
    let n = 0;
    for (const id of tokenizer.ids(text)) {
      if (id === unk) continue;
      const row = mapping ? mapping[id]! : id;
      if (row === undefined || row < 0 || row >= rows) continue;
      const w = weights ? weights[id]! : 1;
      const base = row * dim;
      for (let d = 0; d < dim; d++) v[d]! += w * data[base + d]!;
      n++;
    }
    if (n > 1) for (let d = 0; d < dim; d++) v[d]! /= n;
    return unit ? normalize(v) : v;
  };

  /** A token's row scaled by its weight, as embedOne sums it; null where embedOne skips the token. Built once per id and shared (read-only). */
  const scaled: (Float32Array | null | undefined)[] = [];
  const tokenVector = (id: number): Float32Array | null => {
    const known = scaled[id];
    if (known !== undefined) return known;
    const row = id === unk ? undefined : mapping ? mapping[id]! : id;
    let v: Float32Array | null = null;
    if (row !== undefined && row >= 0 && row < rows) {
      const w = weights ? weights[id]! : 1;
      v = new Float32Array(dim);
      for (let d = 0; d < dim; d++) v[d] = w * data[row * dim + d]!;
    }
    scaled[id] = v;
    return v;
  };

  return {
    name,
    dimension: dim,
    tokenizer,
    embed: async (texts) => texts.map(embedOne),
    async tokenVectors(text) {
      const ids = tokenizer.ids(text);
      const ends = tokenizer.ends(text);
      if (ids.length !== ends.length) throw bad('its tokenizer gives token ids and token offsets of different lengths for this text.');
      return { ends, vectors: ids.map(tokenVector) };
    },
  };
}
