import { join } from 'node:path';
import { ChunkdError } from '../../errors.js';
import { requireExtra } from '../../extras.js';
import { MAX_JSON_BYTES, MAX_MODEL_BYTES, modelFile, readModelFile } from '../../model-files.js';
import { loadHfTokenizer, type HfTokenizer } from '../../tokenizers/index.js';
import { ONNX_EXTRA } from '../onnx-extra.js';

/** The slice of onnxruntime-node used here (typed locally: the package is optional). */
export interface OrtTensor {
  dims: readonly number[];
  data: Float32Array | unknown;
}
export interface OrtSession {
  inputNames: readonly string[];
  outputNames: readonly string[];
  run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
}
export interface Ort {
  InferenceSession: { create(path: string): Promise<OrtSession> };
  Tensor: new (type: 'int64', data: BigInt64Array, dims: number[]) => OrtTensor;
}

const ORT = 'onnxruntime-node';

/** Longest window chunkd runs (attention cost grows with its square); a model claiming more is run in windows of this size. */
export const MAX_WINDOW = 8192;

/** An ONNX model directory opened for token-level use: session, tokenizer and the model's window. */
export interface OnnxTokenModel {
  readonly name: string;
  readonly tokenizer: HfTokenizer;
  readonly session: OrtSession;
  /** Most tokens one run takes, special tokens included. */
  readonly window: number;
  /** config.json, when the directory has one (token classifiers keep id2label there). */
  readonly config: Record<string, unknown> | undefined;
  /** A 400 about this model. */
  bad(why: string): ChunkdError;
  /**
   * One output row per id of `ids` (a whole text's tokens, no special tokens), from `output`
   * ([1, tokens, dim]), running the model in windows that share `overlap` tokens (at most half
   * a window). A shared token takes its row from the earlier window in the first half of the
   * shared part and from the later one in the second half: from the window where it has more
   * context on both sides.
   */
  tokenRows(ids: number[], overlap: number, output: string): Promise<{ rows: Float32Array[]; dim: number }>;
}

/**
 * The model file of a directory: model.onnx, or onnx/model.onnx as Hugging Face exports lay it out;
 * a regular file under the model roots within MAX_MODEL_BYTES (kernel/model-files.ts), by its canonical path.
 */
export async function onnxFile(dir: string): Promise<string | undefined> {
  for (const f of ['model.onnx', join('onnx', 'model.onnx')]) {
    const file = await modelFile(join(dir, f), MAX_MODEL_BYTES);
    if (file) return file.path;
  }
  return undefined;
}

/** A config file of the model directory (under the model roots, within MAX_JSON_BYTES); undefined when absent or invalid. */
export async function readJson<T>(dir: string, file: string): Promise<T | undefined> {
  const bytes = await readModelFile(join(dir, file), MAX_JSON_BYTES);
  if (!bytes) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Open model.onnx and tokenizer.json of `dir` (onnxruntime-node is optional: missing, a 501 with the install line). */
export async function openOnnx(
  dir: string,
  file: string,
  name: string,
  what = 'ONNX model',
): Promise<{ ort: Ort; session: OrtSession; tokenizer: HfTokenizer; bad: (why: string) => ChunkdError }> {
  requireExtra(ONNX_EXTRA, `The ${what} '${name}'`);
  const bad = (why: string) => new ChunkdError('BAD_REQUEST', `Cannot load ${what} '${name}' from ${dir}: ${why}`);
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
  return { ort, session, tokenizer, bad };
}

/** A model directory with model.onnx (or onnx/model.onnx), tokenizer.json and, optionally, config.json. */
export async function loadOnnxTokenModel(dir: string, name: string, what = 'ONNX model'): Promise<OnnxTokenModel> {
  const file = await onnxFile(dir);
  if (!file)
    throw new ChunkdError(
      'BAD_REQUEST',
      `Cannot load ${what} '${name}' from ${dir}: it has no model.onnx (nor onnx/model.onnx). Export the model to ONNX (e.g. \`optimum-cli export onnx --model <model> <dir>\`) and put model.onnx there.`,
    );
  return tokenModel(dir, name, await openOnnx(dir, file, name, what));
}

/** Token-level use of a session already opened (the ONNX embedder shares its own). */
export async function tokenModel(dir: string, name: string, opened: Awaited<ReturnType<typeof openOnnx>>): Promise<OnnxTokenModel> {
  const { ort, session, tokenizer, bad } = opened;
  const window = Math.min(MAX_WINDOW, await modelWindow(dir, tokenizer));
  const { prefix, suffix } = specialTokens(tokenizer);
  const config = await readJson<Record<string, unknown>>(dir, 'config.json');

  const runOne = async (seq: number[], output: string): Promise<{ data: Float32Array; dim: number }> => {
    const dims = [1, seq.length];
    const feeds: Record<string, OrtTensor> = {};
    for (const input of session.inputNames) {
      if (input === 'input_ids') feeds[input] = new ort.Tensor('int64', BigInt64Array.from(seq, BigInt), dims);
      else if (input === 'attention_mask') feeds[input] = new ort.Tensor('int64', new BigInt64Array(seq.length).fill(1n), dims);
      else if (input === 'token_type_ids') feeds[input] = new ort.Tensor('int64', new BigInt64Array(seq.length), dims);
      else throw bad(`unsupported model input '${input}'.`);
    }
    const out = (await session.run(feeds))[output];
    if (!out || !(out.data instanceof Float32Array) || out.dims.length !== 3 || out.dims[1] !== seq.length) {
      throw bad(`output '${output}' is not a float32 [batch, tokens, dim] tensor.`);
    }
    return { data: out.data, dim: out.dims[2]! };
  };

  return {
    name,
    tokenizer,
    session,
    window,
    config,
    bad,
    async tokenRows(ids, overlap, output) {
      const span = window - prefix.length - suffix.length;
      if (span < 1) throw bad(`its window (${window} tokens) leaves no room for text next to its special tokens.`);
      const shared = Math.max(0, Math.min(overlap, Math.floor(span / 2)));
      const rows = new Array<Float32Array>(ids.length);
      let dim = 0;
      for (let start = 0; start < ids.length; start += span - shared) {
        const end = Math.min(ids.length, start + span);
        const out = await runOne([...prefix, ...ids.slice(start, end), ...suffix], output);
        dim = out.dim;
        // Later windows overwrite the second half of what they share with the previous one.
        for (let k = start === 0 ? 0 : start + Math.floor(shared / 2); k < end; k++) {
          const t = prefix.length + k - start;
          rows[k] = out.data.subarray(t * dim, (t + 1) * dim);
        }
        if (end === ids.length) break;
      }
      return { rows, dim };
    },
  };
}

/**
 * Tokens of one run: the tokenizer's own limit, else sentence-transformers' max_seq_length, else
 * transformers' model_max_length (absurd placeholders ignored), else 512.
 */
async function modelWindow(dir: string, tokenizer: HfTokenizer): Promise<number> {
  const sane = (n: unknown) => (typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= 1_000_000 ? n : undefined);
  return (
    sane(tokenizer.maxLength) ??
    sane((await readJson<{ max_seq_length?: number }>(dir, 'sentence_bert_config.json'))?.max_seq_length) ??
    sane((await readJson<{ model_max_length?: number }>(dir, 'tokenizer_config.json'))?.model_max_length) ??
    512
  );
}

/** The special tokens the tokenizer's post-processor puts around a text ([CLS] … [SEP], <s> … </s>). */
function specialTokens(tokenizer: HfTokenizer): { prefix: number[]; suffix: number[] } {
  const plain = tokenizer.ids('a', false);
  const full = tokenizer.ids('a', true);
  for (let i = 0; i + plain.length <= full.length; i++) {
    if (plain.every((id, k) => full[i + k] === id)) return { prefix: full.slice(0, i), suffix: full.slice(i + plain.length) };
  }
  return { prefix: [], suffix: [] };
}
