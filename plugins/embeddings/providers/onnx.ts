import { join } from 'node:path';
import { ChunkdError, loadHfTokenizer, MAX_JSON_BYTES, readModelFile, requireExtra } from '../../../kernel/index.js';
import type { Embedder } from '../embedder.js';
import { ONNX_EXTRA } from '../extras.js';
import { batches, normalize } from '../vectors.js';

/** The slice of onnxruntime-node used here (typed locally: the package is optional). */
interface OrtTensor {
  dims: readonly number[];
  data: Float32Array | unknown;
}
interface OrtSession {
  inputNames: readonly string[];
  outputNames: readonly string[];
  run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
}
interface Ort {
  InferenceSession: { create(path: string): Promise<OrtSession> };
  Tensor: new (type: 'int64', data: BigInt64Array, dims: number[]) => OrtTensor;
}

type Pooling = 'mean' | 'cls' | 'max';
const ORT = 'onnxruntime-node';
const BATCH = 32;

/**
 * A sentence encoder exported to ONNX (model.onnx + tokenizer.json, the layout of
 * sentence-transformers' ONNX exports): token vectors pooled as 1_Pooling/config.json says (mean
 * by default, over the attention mask), normalised unless modules.json lists no Normalize step.
 * Runs on onnxruntime-node, an optional package: missing, the caller gets a 501 with the install line.
 */
export async function loadOnnx(dir: string, file: string, name: string): Promise<Embedder> {
  requireExtra(ONNX_EXTRA, `The ONNX embedding model '${name}'`);
  const bad = (why: string) => new ChunkdError('BAD_REQUEST', `Cannot load ONNX model '${name}' from ${dir}: ${why}`);
  const tokenizer = await loadHfTokenizer(join(dir, 'tokenizer.json'));
  if (!tokenizer) throw bad(`tokenizer.json is missing or unusable (a Hugging Face tokenizer.json of at most ${MAX_JSON_BYTES / 1024 ** 2} MiB is expected).`);
  const ort = (await import(ORT)) as Ort;
  let session: OrtSession;
  try {
    session = await ort.InferenceSession.create(file);
  } catch (e) {
    throw bad(`onnxruntime could not load model.onnx (${e instanceof Error ? e.message.slice(0, 200) : 'unknown error'}).`);
  }
  if (!session.inputNames.includes('input_ids')) throw bad(`the model has no input_ids input (inputs: ${session.inputNames.join(', ')}).`);
  const pooling = readPooling(await readJson(dir, join('1_Pooling', 'config.json')));
  const unit = readNormalize(await readJson(dir, 'modules.json'));
  const maxLength = tokenizer.maxLength ?? (await readJson<{ max_seq_length?: number }>(dir, 'sentence_bert_config.json'))?.max_seq_length ?? 512;
  const output = ['sentence_embedding', 'last_hidden_state', 'token_embeddings'].find((o) => session.outputNames.includes(o)) ?? session.outputNames[0]!;

  const run = async (texts: string[]): Promise<Float32Array[]> => {
    const ids = texts.map((t) => tokenizer.ids(t, true).slice(0, maxLength));
    const width = Math.max(1, ...ids.map((x) => x.length));
    const n = texts.length * width;
    const inputIds = new BigInt64Array(n).fill(BigInt(tokenizer.padId));
    const mask = new BigInt64Array(n);
    ids.forEach((row, b) => row.forEach((id, t) => {
      inputIds[b * width + t] = BigInt(id);
      mask[b * width + t] = 1n;
    }));
    const feeds: Record<string, OrtTensor> = {};
    const dims = [texts.length, width];
    for (const input of session.inputNames) {
      if (input === 'input_ids') feeds[input] = new ort.Tensor('int64', inputIds, dims);
      else if (input === 'attention_mask') feeds[input] = new ort.Tensor('int64', mask, dims);
      else if (input === 'token_type_ids') feeds[input] = new ort.Tensor('int64', new BigInt64Array(n), dims);
      else throw bad(`unsupported model input '${input}'.`);
    }
    const out = (await session.run(feeds))[output]!;
    if (!(out.data instanceof Float32Array)) throw bad(`output '${output}' is not float32.`);
    const vectors = out.dims.length === 2 ? split(out.data, texts.length, out.dims[1]!) : pool(out.data, out.dims, ids.map((x) => x.length), pooling);
    return unit ? vectors.map(normalize) : vectors;
  };

  const probe = await run(['a']);
  const dimension = probe[0]!.length;
  return {
    name,
    dimension,
    tokenizer,
    async embed(texts) {
      const out: Float32Array[] = [];
      for (const batch of batches(texts, BATCH)) out.push(...(await run(batch)));
      return out;
    },
  };
}

function split(data: Float32Array, rows: number, dim: number): Float32Array[] {
  return Array.from({ length: rows }, (_, b) => data.slice(b * dim, (b + 1) * dim));
}

/** Pool [batch, tokens, dim] over each row's real (unpadded) tokens. */
function pool(data: Float32Array, dims: readonly number[], lengths: number[], how: Pooling): Float32Array[] {
  const [, width, dim] = dims as [number, number, number];
  return lengths.map((len, b) => {
    const v = new Float32Array(dim).fill(how === 'max' ? -Infinity : 0);
    const count = how === 'cls' ? 1 : Math.max(1, len);
    for (let t = 0; t < count; t++) {
      const base = (b * width + t) * dim;
      for (let d = 0; d < dim; d++) v[d] = how === 'max' ? Math.max(v[d]!, data[base + d]!) : v[d]! + data[base + d]!;
    }
    if (how === 'mean') for (let d = 0; d < dim; d++) v[d]! /= count;
    return v;
  });
}

/** A config file of the model directory (under the model roots, within MAX_JSON_BYTES); undefined when absent or invalid. */
async function readJson<T>(dir: string, file: string): Promise<T | undefined> {
  const bytes = await readModelFile(join(dir, file), MAX_JSON_BYTES);
  if (!bytes) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

function readPooling(c: Record<string, boolean> | undefined): Pooling {
  if (c?.pooling_mode_cls_token) return 'cls';
  if (c?.pooling_mode_max_tokens) return 'max';
  return 'mean';
}

/** sentence-transformers lists a Normalize module when the model's vectors are meant to be unit length. */
function readNormalize(modules: { type?: string }[] | undefined): boolean {
  return !Array.isArray(modules) || modules.some((m) => m.type?.endsWith('Normalize'));
}
