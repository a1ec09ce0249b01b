import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { BoundedCache } from '../bounded-cache.js';
import { settingName } from '../caps.js';
import { ChunkdError } from '../errors.js';
import { EMBEDDED_MODEL } from '../fields.js';
import { host, settingOf } from '../host.js';
import { hubCacheDir, MAX_MODEL_BYTES, modelFile, resolveModelPath } from '../model-files.js';
import { mappedModel } from '../model-map.js';
import { assetDir } from '../paths.js';
import { installGuide } from './known-models.js';
import type { HubNeeds } from './providers/hub.js';
import { loadModel2Vec } from './providers/model2vec.js';

export { EMBEDDED_MODEL } from '../fields.js';
export { cosine } from './vectors.js';

import type { Embedder } from './embedder-contract.js';
export type { Embedder, TokenVectors } from './embedder-contract.js';

/** Where the built-in models live (committed files; see models/<name>/README.md). */
export const MODELS_DIR = assetDir(import.meta.url, 'models');

/** Loaded models, by canonical directory (API models by name, endpoint and key): at most this many, and this many bytes of weights. */
export const MODEL_CACHE = { maxEntries: 8, maxBytes: 2 * 1024 ** 3 };
const cache = new BoundedCache<Promise<Embedder>>(MODEL_CACHE.maxEntries, MODEL_CACHE.maxBytes);

/** Test hook: how many models are cached, and their bytes. */
export const embedderCache = () => ({ size: cache.size, bytes: cache.bytes });

/**
 * Load an embedding model once (a directory once per canonical path, however it is spelled) and
 * share it. A failed load is not cached, so a model installed later is found without a restart. A
 * name the operator mapped (--model-map, kernel/model-map.ts) loads its installed model instead.
 */
export async function loadEmbedder(requested: string): Promise<Embedder> {
  return (await findEmbedder(requested))();
}

/**
 * The model a name stands for, found but not yet loaded: a name that gives no model is refused
 * here, and the load it returns is loadEmbedder's (shared, once). A plugin checked where it is
 * made (a pipeline's steps, on the event loop) finds its model without reading its weights.
 */
export async function findEmbedder(requested: string): Promise<() => Promise<Embedder>> {
  const name = mappedModel(requested);
  if (name === EMBEDDED_MODEL) return () => cached(name, 0, () => loadModel2Vec(join(MODELS_DIR, name.split('/')[1]!), name));
  if (isApiName(name)) {
    const key = `${name}\0${host().openaiBaseUrl}\0${host().openaiApiKey}`;
    return () => cached(key, 0, async () => (await import('./providers/openai.js')).loadOpenAI(name));
  }
  const dir = await localDirectory(name);
  if (!dir) throw refusal(name);
  const weights = await weightsOf(dir);
  if (!weights) throw refusal(name);
  return () => cached(`dir:${dir}`, weights.size, () => loadDirectory(dir, weights.path, name));
}

function cached(key: string, bytes: number, load: () => Promise<Embedder>): Promise<Embedder> {
  let e = cache.get(key);
  if (!e) {
    e = load();
    cache.set(key, e, bytes);
    e.catch(() => cache.delete(key));
  }
  return e;
}

/** Models served by an OpenAI-compatible API (one vector per text, no token vectors). */
export const isApiName = (name: string) => name.startsWith('openai/') || /^text-embedding-/.test(name);

/**
 * The canonical model directory a name stands for, under the model roots: the name as a path (or a
 * path relative to a root), else a Hugging Face name's snapshot in the cache (downloaded through
 * HF_ENDPOINT when set). Undefined when neither gives a directory under a root.
 */
async function localDirectory(name: string, needs?: HubNeeds): Promise<string | undefined> {
  const real = await resolveModelPath(name);
  if (real && (await stat(real).catch(() => undefined))?.isDirectory()) return real;
  if (/^[\w.-]+\/[\w.-]+$/.test(name)) {
    const { resolveHubModel } = await import('./providers/hub.js');
    const snapshot = await resolveModelPath(await resolveHubModel(name, needs));
    if (snapshot && (await stat(snapshot).catch(() => undefined))?.isDirectory()) return snapshot;
  }
  return undefined;
}

/** The weights file of a model directory: ONNX when it has model.onnx (also under onnx/), else Model2Vec. */
async function weightsOf(dir: string): Promise<{ path: string; size: number } | undefined> {
  for (const f of ['model.onnx', join('onnx', 'model.onnx'), 'model.safetensors']) {
    const file = await modelFile(join(dir, f), MAX_MODEL_BYTES);
    if (file) return file;
  }
  return undefined;
}

/** A model directory under the model roots and its weights file (model.onnx or model.safetensors). */
export async function loadDirectory(dir: string, weights: string, name: string): Promise<Embedder> {
  if (weights.endsWith('.onnx')) {
    const { loadOnnx } = await import('./providers/onnx.js');
    return loadOnnx(dir, weights, name);
  }
  return loadModel2Vec(dir, name);
}

/** The one answer for a name that gives no model: the same whatever exists on the server's disk. */
function refusal(name: string): ChunkdError {
  const guide = installGuide(name, hubCacheDir());
  if (guide) return new ChunkdError('BAD_REQUEST', `Embedding model ${guide}`);
  const shown = name.length > 200 ? `${name.slice(0, 200)}…` : name;
  return new ChunkdError(
    'BAD_REQUEST',
    `Unknown embedding model '${shown}': not a known model nor a model directory under the configured model roots. Use ${EMBEDDED_MODEL} (built in); ` +
      `a model directory (tokenizer.json with model.safetensors for Model2Vec, or model.onnx for ONNX) under ${settingName(settingOf('models-dir'))} or the Hugging Face cache, ` +
      `named by its path or by a path relative to a root, weights at most ${MAX_MODEL_BYTES / 1024 ** 3} GiB; a Hugging Face name such as minishlab/potion-base-8M whose snapshot is in the cache; ` +
      `or an API model: text-embedding-3-small or openai/<model>.`,
  );
}

/**
 * The directory of a model that is not an embedder (a token classifier), under the model roots: a
 * path (or a path relative to a root), or a Hugging Face name found in the local cache (or
 * downloaded through HF_ENDPOINT); else a 400 whose text depends on the name only.
 */
export async function locateModelDir(requested: string, needs: HubNeeds): Promise<string> {
  const name = mappedModel(requested);
  const dir = await localDirectory(name, needs);
  if (dir) return dir;
  const shown = name.length > 200 ? `${name.slice(0, 200)}…` : name;
  throw new ChunkdError(
    'BAD_REQUEST',
    `Unknown ${needs.what.toLowerCase()} '${shown}': not a model directory under the configured model roots (${settingName(settingOf('models-dir'))}, the Hugging Face cache) nor a Hugging Face name (org/model) whose snapshot is in the cache. Such a directory holds ${needs.files}.${needs.hint ? ` ${needs.hint}` : ''}`,
  );
}
