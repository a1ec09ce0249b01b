import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { settingName } from './caps.js';
import { ChunkdError } from './errors.js';
import { EMBEDDED_MODEL } from './fields.js';
import { settingOf, host } from './host.js';
import { hubCacheDir, resolveModelPath } from './model-files.js';

/**
 * The operator's explicit renaming of requested model names (--model-map: `requested=installed,...`),
 * so clients whose defaults name models this server cannot download (Chonkie's potion-*, modernbert,
 * chonky) can be served by models it has. The service hands it to the kernel with the model roots
 * (kernel/host.ts), and worker threads get it as they start. Nothing but this map renames a model: a
 * name absent from it is resolved as sent.
 */
const setting = () => settingName(settingOf('model-map'));

/** `requested=installed` entries as a map; a malformed or repeated entry stops the start, naming it. */
export function parseModelMap(entries: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const from = eq < 0 ? '' : entry.slice(0, eq).trim();
    const to = eq < 0 ? '' : entry.slice(eq + 1).trim();
    if (!from || !to)
      throw new ChunkdError('BAD_REQUEST', `${setting()}: '${entry}' is not requested=installed (e.g. minishlab/potion-base-8M=/models/potion-base-8M).`);
    if (map.has(from)) throw new ChunkdError('BAD_REQUEST', `${setting()}: '${from}' is mapped twice; keep one entry.`);
    if (from === to) throw new ChunkdError('BAD_REQUEST', `${setting()}: '${entry}' maps a name to itself; remove it.`);
    map.set(from, to);
  }
  for (const [from, to] of map) {
    if (map.has(to))
      throw new ChunkdError('BAD_REQUEST', `${setting()}: '${from}' maps to '${to}', which is mapped too; map each name straight to an installed model.`);
  }
  return map;
}

let parsed: { raw: string; map: Map<string, string> } | undefined;

/** The installed model the operator mapped `name` to, or `name` itself. */
export function mappedModel(name: string): string {
  const entries = host().modelMap;
  if (!entries.length) return name;
  const raw = entries.join(',');
  if (parsed?.raw !== raw) parsed = { raw, map: parseModelMap(entries) };
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
