import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChunkdError } from '../../errors.js';
import { host } from '../../host.js';
import { hubCacheDir } from '../../model-files.js';
import { installGuide } from '../known-models.js';

export { hubCacheDir } from '../../model-files.js';

/** What a caller needs from a hub model, for the message that says where to put its files. */
export interface HubNeeds {
  what: string;
  files: string;
  /** How to make such a model, when it cannot be downloaded as is. */
  hint?: string;
}

const EMBEDDING_NEEDS: HubNeeds = {
  what: 'Embedding model',
  files: 'tokenizer.json and model.safetensors for a Model2Vec model, or tokenizer.json and model.onnx for an ONNX encoder; config.json too',
};

/**
 * The local directory of a hub model (`org/model`): its snapshot in the cache; else, when
 * HF_ENDPOINT is set, downloaded through it into the cache; else a 400 that says where to put it.
 */
export async function resolveHubModel(name: string, needs: HubNeeds = EMBEDDING_NEEDS): Promise<string> {
  const repo = join(hubCacheDir(), `models--${name.replace('/', '--')}`);
  const found = snapshot(repo);
  if (found) return found;
  const target = join(repo, 'snapshots', 'main');
  const where = `Put its files (${needs.files}) in ${target}, or name a model directory by its path.`;
  const endpoint = host().hubEndpoint.trim();
  if (!endpoint) {
    const guide = installGuide(name, hubCacheDir());
    if (guide) throw new ChunkdError('BAD_REQUEST', `${needs.what} ${guide}`);
    throw new ChunkdError(
      'BAD_REQUEST',
      `${needs.what} '${name}' is not in the local Hugging Face cache (${hubCacheDir()}). ${where} Setting HF_ENDPOINT lets chunkd download it.${needs.hint ? ` ${needs.hint}` : ''}`,
    );
  }
  try {
    await download(endpoint.replace(/\/+$/, ''), name, target);
  } catch (e) {
    await rm(target, { recursive: true, force: true });
    const why = e instanceof Error ? e.message : 'unknown error';
    throw new ChunkdError(
      'BAD_REQUEST',
      `${needs.what} '${name}' is not in the local Hugging Face cache and could not be downloaded from ${endpoint} (${why}). ${where}`,
    );
  }
  return target;
}

/** The snapshot refs/main points at, else any snapshot holding a tokenizer.json (newest first). */
function snapshot(repo: string): string | undefined {
  const snapshots = join(repo, 'snapshots');
  if (!existsSync(snapshots)) return undefined;
  const ref = join(repo, 'refs', 'main');
  if (existsSync(ref)) {
    const dir = join(snapshots, readFileSync(ref, 'utf8').trim());
    if (existsSync(join(dir, 'tokenizer.json'))) return dir;
  }
  return readdirSync(snapshots)
    .map((d) => join(snapshots, d))
    .filter((d) => existsSync(join(d, 'tokenizer.json')))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

/** Files a static or ONNX model needs; the first group is required, one of the weights files must exist. */
const REQUIRED = ['tokenizer.json'];
const WEIGHTS = ['model.safetensors', 'onnx/model.onnx'];
const OPTIONAL = ['config.json', 'modules.json', '1_Pooling/config.json'];

async function download(endpoint: string, name: string, target: string): Promise<void> {
  const get = async (file: string): Promise<Buffer | undefined> => {
    const res = await fetch(`${endpoint}/${name}/resolve/main/${file}`, { signal: AbortSignal.timeout(120_000) });
    if (res.status === 404) return undefined;
    if (!res.ok) throw new Error(`HTTP ${res.status} for ${file}`);
    return Buffer.from(await res.arrayBuffer());
  };
  const save = async (file: string, data: Buffer) => {
    await mkdir(join(target, file, '..'), { recursive: true });
    await writeFile(join(target, file), data);
  };
  for (const file of REQUIRED) {
    const data = await get(file);
    if (!data) throw new Error(`the repository has no ${file}`);
    await save(file, data);
  }
  let weights = false;
  for (const file of WEIGHTS) {
    const data = weights ? undefined : await get(file);
    if (data) {
      await save(file, data);
      weights = true;
    }
  }
  if (!weights) throw new Error('the repository has neither model.safetensors nor onnx/model.onnx');
  for (const file of OPTIONAL) {
    const data = await get(file);
    if (data) await save(file, data);
  }
  await mkdir(join(target, '..', '..', 'refs'), { recursive: true });
  await writeFile(join(target, '..', '..', 'refs', 'main'), 'main');
}
