import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { host } from './host.js';
import { ROOT } from './paths.js';

/**
 * Tokenizer and model files named by clients come only from the model roots, never from anywhere
 * else on the server's disk: a name is resolved to one canonical real path (symlinks and `..`
 * followed) that must lie under a root, be a regular file (no device, FIFO or directory) and be
 * under a size cap. Every failure is the same `undefined`, so callers answer one refusal whatever
 * the reason: a client cannot tell a missing path from one outside the roots or a directory.
 */

/** Largest model weights file read (model.safetensors, model.onnx). */
export const MAX_MODEL_BYTES = 1024 ** 3;
/** Largest tokenizer.json (or config JSON) read: the largest common ones are ~35 MB. */
export const MAX_JSON_BYTES = 64 * 1024 ** 2;
/** Longer names are refused before touching the disk. */
const MAX_NAME = 4096;

/** chunkd's own model folder (committed files), found from the sources or from dist/. */
export const SHIPPED_MODELS_DIR = join(ROOT, 'kernel', 'embeddings', 'models');

/** The Hugging Face hub cache, where huggingface_hub and transformers.js users already keep models (the service finds it: kernel/host.ts). */
export function hubCacheDir(): string {
  return host().hubCache;
}

/** The operator's model roots (--models-dir), the Hugging Face cache, the shipped models. */
export function modelRoots(): string[] {
  return [...host().modelsDirs.map((d) => resolve(d)), resolve(hubCacheDir()), SHIPPED_MODELS_DIR];
}

/** The roots as they exist now, canonical (a root may be created after start, e.g. the HF cache). */
async function realRoots(): Promise<string[]> {
  const out: string[] = [];
  for (const r of modelRoots()) {
    const real = await realpath(r).catch(() => undefined);
    if (real && !out.includes(real)) out.push(real);
  }
  return out;
}

const under = (root: string, real: string) => real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);

/**
 * The canonical real path of `name` (a file or a directory) under a model root, or undefined. An
 * absolute name must resolve into a root; a relative one is looked up inside each root in turn.
 */
export async function resolveModelPath(name: string): Promise<string | undefined> {
  if (!name || name.length > MAX_NAME || name.includes('\0')) return undefined;
  const roots = await realRoots();
  const candidates = isAbsolute(name) ? [name] : roots.map((r) => join(r, name));
  for (const candidate of candidates) {
    const real = await realpath(candidate).catch(() => undefined);
    if (real && roots.some((r) => under(r, real))) return real;
  }
  return undefined;
}

/** A regular file under a model root and at most `maxBytes` long: its canonical path and size. */
export async function modelFile(path: string, maxBytes: number): Promise<{ path: string; size: number } | undefined> {
  const real = await resolveModelPath(path);
  if (!real) return undefined;
  const info = await stat(real).catch(() => undefined);
  if (!info?.isFile() || info.size > maxBytes) return undefined;
  return { path: real, size: info.size };
}

/**
 * The bytes of a model file, checked again on the open descriptor (a regular file, within the cap)
 * and read no further than the cap, so a file swapped after the check cannot make the read unbounded.
 */
export async function readModelFile(path: string, maxBytes: number): Promise<Buffer | undefined> {
  const file = await modelFile(path, maxBytes);
  if (!file) return undefined;
  const fd = await open(file.path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
  if (!fd) return undefined;
  try {
    const info = await fd.stat();
    if (!info.isFile() || info.size > maxBytes) return undefined;
    const buf = Buffer.allocUnsafe(info.size);
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await fd.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    return buf.subarray(0, n);
  } finally {
    await fd.close();
  }
}
