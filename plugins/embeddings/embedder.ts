import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { assetDir, ChunkdError, EMBEDDED_MODEL, type Tokenizer } from '../../kernel/index.js';
import type { HubNeeds } from './providers/hub.js';
import { loadModel2Vec } from './providers/model2vec.js';

export { EMBEDDED_MODEL } from '../../kernel/index.js';
export { cosine } from './vectors.js';

/** One embedding model, whatever serves it: a static model, an ONNX encoder, or an API. */
export interface Embedder {
  /** The name it was loaded by. */
  readonly name: string;
  /** Length of every vector (an API model learns it from its first answer; 0 before). */
  readonly dimension: number;
  /** The model's own tokenizer, for counting tokens (chunk_size limits are in these tokens). */
  readonly tokenizer: Tokenizer;
  /** One vector per text, in order. Texts are embedded as given (no chunking, no truncation unless the model has a limit). */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Token-level vectors of one whole text, for late chunking (local models only; an API returns one vector per text). */
  tokenVectors?(text: string): Promise<TokenVectors>;
}

/**
 * The tokens of a text (no special tokens): token k covers the text from `ends[k-1]` (0 for the
 * first) to `ends[k]`, and has vector `vectors[k]`, or null when the model has none for it (a
 * static model's unknown word).
 */
export interface TokenVectors {
  ends: Uint32Array;
  vectors: (Float32Array | null)[];
}

/** Where the built-in models live (committed files; see models/<name>/README.md). */
export const MODELS_DIR = assetDir(import.meta.url, 'models');

const cache = new Map<string, Promise<Embedder>>();

/**
 * Load an embedding model once per name (and, for API models, per endpoint and key) and share it.
 * A failed load is not cached, so a model installed later is found without a restart.
 */
export function loadEmbedder(name: string): Promise<Embedder> {
  const key = cacheKey(name);
  let e = cache.get(key);
  if (!e) {
    e = resolve(name);
    cache.set(key, e);
    e.catch(() => cache.delete(key));
  }
  return e;
}

/** Models served by an OpenAI-compatible API (one vector per text, no token vectors). */
export const isApiName = (name: string) => name.startsWith('openai/') || /^text-embedding-/.test(name);

function cacheKey(name: string): string {
  return isApiName(name) ? `${name}\0${process.env.OPENAI_BASE_URL ?? ''}\0${process.env.OPENAI_API_KEY ?? ''}` : name;
}

async function resolve(name: string): Promise<Embedder> {
  if (name === EMBEDDED_MODEL) return loadModel2Vec(join(MODELS_DIR, name.split('/')[1]!), name);
  if (isApiName(name)) {
    const { loadOpenAI } = await import('./providers/openai.js');
    return loadOpenAI(name);
  }
  if (isLocalPath(name)) return loadDirectory(name, name);
  if (/^[\w.-]+\/[\w.-]+$/.test(name)) {
    const { resolveHubModel } = await import('./providers/hub.js');
    return loadDirectory(await resolveHubModel(name), name);
  }
  throw new ChunkdError(
    'BAD_REQUEST',
    `Unknown embedding model '${name}'. Use ${EMBEDDED_MODEL} (built in), a path to a Model2Vec or ONNX model directory, a Hugging Face name such as minishlab/potion-base-8M, or an API model: text-embedding-3-small or openai/<model>.`,
  );
}

/**
 * The directory of a model that is not an embedder (a token classifier): a path, or a Hugging Face
 * name found in the local cache (or downloaded through HF_ENDPOINT); else a 400 saying where to put it.
 */
export async function locateModelDir(name: string, needs: HubNeeds): Promise<string> {
  if (isLocalPath(name)) {
    if (!existsSync(name) || !statSync(name).isDirectory()) throw new ChunkdError('BAD_REQUEST', `${needs.what} directory '${name}' does not exist. It must hold ${needs.files}.${needs.hint ? ` ${needs.hint}` : ''}`);
    return name;
  }
  if (/^[\w.-]+\/[\w.-]+$/.test(name)) {
    const { resolveHubModel } = await import('./providers/hub.js');
    return resolveHubModel(name, needs);
  }
  throw new ChunkdError('BAD_REQUEST', `Unknown ${needs.what.toLowerCase()} '${name}'. Name a model directory by its path (holding ${needs.files}) or a Hugging Face name (org/model) in the local cache.`);
}

const isLocalPath = (name: string) => isAbsolute(name) || name.startsWith('./') || name.startsWith('../') || name.startsWith('~') || (existsSync(name) && statSync(name).isDirectory());

/** A model directory: ONNX when it has model.onnx (also under onnx/), else Model2Vec. */
export async function loadDirectory(dir: string, name: string): Promise<Embedder> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new ChunkdError('BAD_REQUEST', `Embedding model directory '${name}' does not exist. It must hold tokenizer.json and either model.safetensors (Model2Vec) or model.onnx (ONNX).`);
  }
  const onnx = ['model.onnx', join('onnx', 'model.onnx')].map((f) => join(dir, f)).find((f) => existsSync(f));
  if (onnx) {
    const { loadOnnx } = await import('./providers/onnx.js');
    return loadOnnx(dir, onnx, name);
  }
  if (existsSync(join(dir, 'model.safetensors'))) return loadModel2Vec(dir, name);
  throw new ChunkdError('BAD_REQUEST', `Embedding model directory '${name}' has neither model.safetensors (Model2Vec) nor model.onnx (ONNX) next to its tokenizer.json.`);
}
