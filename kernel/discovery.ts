import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILTIN_PLUGINS_DIR } from './paths.js';
import { ManifestMeta, type AnyManifest } from './plugin.js';
import { Registry } from './registry.js';
import { compileValidator, schemaProblem } from './validation.js';

const INDEX_FILES = ['index.js', 'index.mjs', 'index.ts'];
const checkMeta = compileValidator(ManifestMeta);

/** A plugin folder that cannot be loaded: start-up stops and says which file and why. */
export class PluginLoadError extends Error {}

/**
 * Build the registry from the built-in plugins folder and any extra folders (e.g. --plugins-dir):
 * every subfolder is a plugin and must hold an index file. Folders named `_…` or `.…` (shared
 * helpers, hidden files) and node_modules are not plugins. Nothing else is skipped.
 */
export async function discover(extraDirs: readonly string[] = []): Promise<Registry> {
  const registry = new Registry();
  for (const dir of [BUILTIN_PLUGINS_DIR, ...extraDirs.map((d) => resolve(d))]) {
    const builtIn = dir === BUILTIN_PLUGINS_DIR;
    if (!existsSync(dir)) throw new PluginLoadError(`Plugins directory '${dir}' does not exist.`);
    for (const entry of readdirSync(dir).sort()) {
      const folder = join(dir, entry);
      if (!statSync(folder).isDirectory() || /^[._]/.test(entry) || entry === 'node_modules') continue;
      const index = INDEX_FILES.map((f) => join(folder, f)).find(existsSync);
      if (!index)
        throw new PluginLoadError(
          `Plugin folder ${folder} has no ${INDEX_FILES.join(' or ')}: add the manifest, or prefix the folder name with _ if it is not a plugin.`,
        );
      const manifest = await loadManifest(index);
      // chunkd's own config schemas are built with TypeBox; another folder's are checked against the meta-schema here, once.
      const problem = builtIn ? undefined : schemaProblem(manifest.config);
      if (problem) throw new PluginLoadError(`Invalid plugin manifest ${index}: its config is not a valid JSON Schema (${problem}).`);
      try {
        registry.register(manifest, index);
      } catch (e) {
        throw new PluginLoadError((e as Error).message);
      }
    }
  }
  return registry.freeze();
}

/**
 * A manifest file's default export, not checked: what a worker thread loads, since the calling
 * thread's discovery checked the same file (loadManifest) before any task could name it. Checking
 * it again cost each worker its first Ajv compilation (~40 ms of a cold thread, measured).
 */
export async function importManifest(file: string): Promise<AnyManifest> {
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (e) {
    throw new PluginLoadError(`Cannot import plugin manifest ${file}: ${(e as Error).message}`);
  }
  const manifest = mod.default as AnyManifest | undefined;
  if (!manifest || typeof manifest !== 'object') {
    throw new PluginLoadError(
      `Plugin manifest ${file} must export default defineChunker({...}), defineRefinery({...}), defineChef({...}) or defineHandshake({...}).`,
    );
  }
  return manifest;
}

/** A manifest file's default export, checked: discovery's one door for a plugin folder. */
export async function loadManifest(file: string): Promise<AnyManifest> {
  const manifest = await importManifest(file);
  try {
    checkMeta(manifest, ['manifest']);
  } catch (e) {
    throw new PluginLoadError(`Invalid plugin manifest ${file}: ${(e as Error).message}`);
  }
  if (manifest.kind === 'chef' && (!Array.isArray(manifest.mediaTypes) || !Array.isArray(manifest.extensions))) {
    throw new PluginLoadError(`Invalid plugin manifest ${file}: a chef lists the mediaTypes and extensions it reads (either may be empty).`);
  }
  if (manifest.kind === 'handshake' && !manifest.capabilities) {
    throw new PluginLoadError(`Invalid plugin manifest ${file}: a handshake declares its capabilities: {vector: boolean, text: boolean}.`);
  }
  if (manifest.embeddedDefault !== undefined && (manifest.kind !== 'handshake' || typeof manifest.embeddedDefault !== 'function')) {
    throw new PluginLoadError(
      `Invalid plugin manifest ${file}: embeddedDefault is a handshake's function from a directory to the connection config of the default store.`,
    );
  }
  if (typeof manifest.load !== 'function') throw new PluginLoadError(`Invalid plugin manifest ${file}: load must be a function returning import('./impl.js').`);
  for (const [key, field] of Object.entries(manifest.config.properties)) {
    const f = field as { default?: unknown; description?: string };
    // A handshake's config is a connection: a field with no sensible default (a URL) is required in the connection entry instead.
    if ((f.default === undefined && manifest.kind !== 'handshake') || !f.description) {
      throw new PluginLoadError(
        `Invalid plugin manifest ${file}: config field '${key}' needs ${manifest.kind === 'handshake' ? '' : 'a default and '}a description.`,
      );
    }
  }
  return manifest;
}
