/**
 * `chunkd search "QUESTION"` or `chunkd search [STORE] --collection C --query Q [--k 5] [--filter JSON]`: search a store connection of this
 * server's settings (CHUNKD_STORES, the data directory's default) without a server, through the
 * very Stores service the HTTP route uses. One JSON line per hit, best first.
 */
import { discover } from '../kernel/discovery.js';
import { isChunkdError } from '../kernel/errors.js';
import { exportPluginSettings } from '../service/plugin-settings.js';
import { Stores, vectorProblem } from '../service/stores/stores.js';
import { readSettings, Usage } from './chunk.js';
import { cliArgs } from './cli-args.js';
import { envOf } from '../service/settings.js';
import { resolve } from 'node:path';
import { SEARCH_MODES } from '../kernel/search-mode.js';
import type { StoreFilter } from '../kernel/store-filter.js';
import { defaultStore, lastIngest } from './ingest-defaults.js';

export const SEARCH_HELP = `Usage: chunkd search "QUESTION" [--collection NAME] [--k 5] [--filter JSON] [--mode ${SEARCH_MODES.join('|')}]
       chunkd search [STORE] --collection NAME (--query TEXT | --embedding JSON) [--k 5] [--document ID] [--filter JSON] [--mode ${SEARCH_MODES.join('|')}]

Search a collection of one of the server's store connections (${envOf('stores')}, or the default
LanceDB store under the data directory ${envOf('dataDir')}): one JSON line per chunk, best first,
each with its score and metadata (document, name, the document's own keys). Without STORE, the
default store; without --collection, the collection the last chunkd ingest wrote. --filter keeps
chunks whose metadata fields hold: '{"team": "docs", "lang": {"in": ["en", "fr"]}}'.
--mode: text (the store's full-text index), vector (the query's embedding), hybrid (both, fused);
by default the collection's: text for the built-in model (measured best, held out), hybrid for others (not measured).
The mode that ran is written to stderr ("mode: text").`;

export async function searchCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let stores: Stores | undefined;
  let dataDir = '';
  try {
    const { positional, flags } = cliArgs(args, ['collection', 'query', 'embedding', 'k', 'document', 'filter', 'mode'], ['help'], 'chunkd search --help');
    if (flags.help) {
      process.stdout.write(`${SEARCH_HELP}\n`);
      return 0;
    }
    // With --query or --embedding, a positional names the store; without, it is the question.
    const asks = flags.query !== undefined || flags.embedding !== undefined;
    if (positional.length > 1) throw new Usage(`Give one ${asks ? 'store' : 'question (quote it)'}; got ${positional.length} words. Run: chunkd search --help`);
    const query = asks ? flags.query : positional[0];
    if (query === undefined && flags.embedding === undefined)
      throw new Usage('Ask something: chunkd search "a question", or --query TEXT. Run: chunkd search --help');
    if (flags.query !== undefined && flags.embedding !== undefined) throw new Usage('Give either --query (a text) or --embedding (a JSON list of numbers).');
    const k = flags.k === undefined ? 5 : Number(flags.k);
    if (!Number.isInteger(k) || k < 1) throw new Usage(`--k must be a whole number of at least 1; got '${flags.k}'.`);
    let embedding: number[] | undefined;
    if (flags.embedding !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(String(flags.embedding));
      } catch {
        parsed = undefined;
      }
      if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((x) => typeof x === 'number'))
        throw new Usage(`--embedding must be a JSON list of numbers, e.g. --embedding "[0.1, 0.2]"; got '${String(flags.embedding).slice(0, 80)}'.`);
      const problem = vectorProblem(parsed);
      if (problem) throw new Usage(`--embedding ${problem}: a vector that is all zeros or holds a number beyond ±1.8e308 matches nothing.`);
      embedding = parsed as number[];
    }
    const filter = readFilter(flags.filter, flags.document);
    const settings = readSettings(env);
    dataDir = resolve(settings.dataDir);
    exportPluginSettings(settings);
    const registry = await discover(settings.pluginsDir);
    stores = Stores.fromSettings(registry, settings);
    const last = lastIngest(settings.dataDir);
    const store = (asks ? positional[0] : undefined) ?? defaultStore(stores.names());
    if (store === undefined) throw new Usage(`This server has no store connections (${envOf('stores')}).`);
    const collection = flags.collection === undefined ? await pickCollection(stores, store, last, dataDir) : String(flags.collection);
    const { mode, hits } = await stores.searchWithMode(store, {
      collection,
      ...(query === undefined ? {} : { query: String(query) }),
      ...(embedding === undefined ? {} : { embedding }),
      k,
      ...(filter ? { filter } : {}),
      ...(flags.mode === undefined ? {} : { mode: String(flags.mode) }),
    });
    process.stderr.write(`mode: ${mode}\n`);
    for (const h of hits)
      process.stdout.write(
        `${JSON.stringify({ id: h.id, text: h.text, start_index: h.start_index, end_index: h.end_index, token_count: h.token_count, metadata: { ...h.metadata, document: h.document }, score: h.score })}\n`,
      );
    if (!hits.length) process.stderr.write(`No chunk of '${collection}' (store '${store}', data directory ${dataDir}) matched.\n`);
    return 0;
  } catch (e) {
    if (e instanceof Usage) {
      process.stderr.write(`${e.message}\n`);
      return 2;
    }
    if (isChunkdError(e)) {
      // A store or collection not found: say which data directory was read (another folder has another ./data).
      process.stderr.write(`${e.message}${e.code === 'NOT_FOUND' && dataDir ? ` (data directory: ${dataDir}; ${envOf('dataDir')} names another)` : ''}\n`);
      return e.status >= 500 ? 1 : 2;
    }
    throw e;
  } finally {
    await stores?.close();
  }
}

/** --filter JSON (and --document ID) as a search filter; its values are checked by the stores service, as a request's are. */
function readFilter(json: string | boolean | undefined, document: string | boolean | undefined): StoreFilter | undefined {
  let filter: Record<string, unknown> = {};
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(json));
    } catch {
      throw new Usage(`--filter must be JSON, e.g. --filter '{"team": "docs", "lang": {"in": ["en", "fr"]}}'.`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Usage(`--filter must be a JSON object of metadata fields, e.g. '{"team": "docs"}'.`);
    // Fields of metadata, or the search body's whole filter ({"document", "metadata"}).
    const p = parsed as Record<string, unknown>;
    filter = 'metadata' in p || 'document' in p ? p : { metadata: p };
  }
  if (document !== undefined) filter = { ...filter, document: String(document) };
  return Object.keys(filter).length ? (filter as StoreFilter) : undefined;
}

/** The collection to search when none is named: the last ingest's in this store, else the store's only one; else a usage error listing them, naming the data directory. */
async function pickCollection(stores: Stores, store: string, last: { store: string; collection: string } | undefined, dataDir: string): Promise<string> {
  if (last && last.store === store) return last.collection;
  const listing = (await stores.list()).find((s) => s.name === store);
  const names = listing?.collections.map((c) => c.name) ?? [];
  if (names.length === 1) return names[0]!;
  if (!names.length)
    throw new Usage(
      `The store '${store}' has no collection (data directory: ${dataDir}): write one first, e.g. chunkd ingest ./my-folder, or run from the folder whose ./data holds it (or set ${envOf('dataDir')}).`,
    );
  throw new Usage(`Name the collection to search with --collection: the store '${store}' has ${names.join(', ')}.`);
}
