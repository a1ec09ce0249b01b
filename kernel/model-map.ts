import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ChunkdError } from './errors.js';
import { EMBEDDED_MODEL } from './fields.js';
import { hubCacheDir, resolveModelPath } from './model-files.js';

/**
 * The operator's explicit renaming of requested model names (--model-map, CHUNKD_MODEL_MAP:
 * `requested=installed,...`), so clients whose defaults name models this server cannot download
 * (Chonkie's potion-*, modernbert, chonky) can be served by models it has. It lives in the
 * environment, as the model roots do, because worker threads copy the environment when they start.
 * Nothing but this map renames a model: a name absent from it is resolved as sent.
 */
const ENV = 'CHUNKD_MODEL_MAP';
const SETTING = `--model-map (${ENV})`;

/** `requested=installed` entries as a map; a malformed or repeated entry stops the start, naming it. */
export function parseModelMap(entries: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const from = eq < 0 ? '' : entry.slice(0, eq).trim();
    const to = eq < 0 ? '' : entry.slice(eq + 1).trim();
    if (!from || !to) throw new ChunkdError('BAD_REQUEST', `${SETTING}: '${entry}' is not requested=installed (e.g. minishlab/potion-base-8M=/models/potion-base-8M).`);
    if (map.has(from)) throw new ChunkdError('BAD_REQUEST', `${SETTING}: '${from}' is mapped twice; keep one entry.`);
    if (from === to) throw new ChunkdError('BAD_REQUEST', `${SETTING}: '${entry}' maps a name to itself; remove it.`);
    map.set(from, to);
  }
  for (const [from, to] of map) {
    if (map.has(to)) throw new ChunkdError('BAD_REQUEST', `${SETTING}: '${from}' maps to '${to}', which is mapped too; map each name straight to an installed model.`);
  }
  return map;
}

/** Publish the map for this process and the worker threads it starts (an empty list clears it). */
export function exportModelMap(map: Map<string, string>): void {
  if (map.size) process.env[ENV] = [...map].map(([k, v]) => `${k}=${v}`).join(',');
  else delete process.env[ENV];
}

let parsed: { raw: string; map: Map<string, string> } | undefined;

/** The installed model the operator mapped `name` to, or `name` itself. */
export function mappedModel(name: string): string {
  const raw = process.env[ENV] ?? '';
  if (!raw) return name;
  if (parsed?.raw !== raw) parsed = { raw, map: parseModelMap(raw.split(',').map((s) => s.trim()).filter(Boolean)) };
  return parsed.map.get(name) ?? name;
}

/**
 * Targets that name no installed model: not the built-in model, an API model, a file or directory
 * under a model root, nor a Hugging Face name with a snapshot in the cache. Checked at start-up so a
 * mistyped mapping stops the server instead of surfacing as a client's 400.
 */
export async function missingTargets(map: Map<string, string>): Promise<string[]> {
  const missing: string[] = [];
  for (const target of new Set(map.values())) {
    if (target === EMBEDDED_MODEL || /^(openai\/|text-embedding-)/.test(target)) continue;
    if (await resolveModelPath(target)) continue;
    if (/^[\w.-]+\/[\w.-]+$/.test(target) && existsSync(join(hubCacheDir(), `models--${target.replace('/', '--')}`, 'snapshots'))) continue;
    missing.push(target);
  }
  return missing;
}
