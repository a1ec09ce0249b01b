/**
 * What a pipeline-less `chunkd ingest DIR` runs, and where `chunkd search` looks by default: the
 * default preset's steps (each file read by the chef its type needs, then the retrieval preset
 * presets/retrieval/default-passage-400.json), the default store, a collection named after the
 * folder, and the last collection ingested under this data directory.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { CollectionName } from '../kernel/handshake.js';
import { DEFAULT_STORE } from '../service/stores/connections.js';
import type { Step } from '../service/pipelines/steps.js';
import { AUTO_CHEF } from '../service/pipelines/steps.js';

/** The chunk step of presets/retrieval/default-passage-400.json (test/cli-ingest-defaults.test.ts holds them equal). */
export const DEFAULT_CHUNK_STEP: Step = { type: 'chunk', chunker: 'passage', config: { tokenizer: 'cl100k_base', chunk_size: 400, target: 1 } };

/** The default preset's steps, writing to `store`'s `collection`. */
export const defaultSteps = (store: string, collection: string): Step[] => [
  { type: 'process', chef: AUTO_CHEF, config: {} },
  DEFAULT_CHUNK_STEP,
  { type: 'write', store, config: { collection } },
];

const COLLECTION = new RegExp((CollectionName as unknown as { pattern: string }).pattern);

/** A collection named after a folder: its base name, each character a collection name cannot hold made `-` (`docs` when nothing is left). */
export function collectionOf(dir: string): string {
  const name = basename(resolve(dir))
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 63);
  return COLLECTION.test(name) ? name : 'docs';
}

/** The store a command uses when none is named: `default` when the settings have it, else the first connection. */
export const defaultStore = (names: string[]): string | undefined => (names.includes(DEFAULT_STORE) ? DEFAULT_STORE : names[0]);

const lastFile = (dataDir: string) => join(dataDir, 'ingest', 'last.json');

/** Remember the collection an ingest wrote, for a `chunkd search` that names none. */
export function rememberIngest(dataDir: string, store: string, collection: string): void {
  mkdirSync(join(dataDir, 'ingest'), { recursive: true });
  writeFileSync(lastFile(dataDir), `${JSON.stringify({ store, collection })}\n`);
}

/** The collection the last ingest under this data directory wrote, if any. */
export function lastIngest(dataDir: string): { store: string; collection: string } | undefined {
  try {
    const last = JSON.parse(readFileSync(lastFile(dataDir), 'utf8')) as { store?: unknown; collection?: unknown };
    return typeof last.store === 'string' && typeof last.collection === 'string' ? { store: last.store, collection: last.collection } : undefined;
  } catch {
    return undefined;
  }
}
