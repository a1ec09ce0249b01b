/**
 * `chunkd search STORE --collection C --query Q [--k 5]`: search a store connection of this
 * server's settings (CHUNKD_STORES, the data directory's default) without a server, through the
 * very Stores service the HTTP route uses. One JSON line per hit, best first.
 */
import { discover } from '../kernel/discovery.js';
import { isChunkdError } from '../kernel/errors.js';
import { exportPluginSettings } from '../service/assembly.js';
import { Stores, vectorProblem } from '../service/stores/stores.js';
import { readSettings, Usage } from './chunk.js';
import { cliArgs } from './cli-args.js';
import { envOf } from '../service/settings.js';

export const SEARCH_HELP = `Usage: chunkd search STORE --collection NAME (--query TEXT | --embedding JSON) [--k 5] [--document ID]

Search a collection of one of the server's store connections (${envOf('stores')}, or the default
LanceDB store under ${envOf('dataDir')}): one JSON line per chunk, best first, each with its score.`;

export async function searchCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let stores: Stores | undefined;
  try {
    const { positional, flags } = cliArgs(args, ['collection', 'query', 'embedding', 'k', 'document'], ['help'], 'chunkd search --help');
    if (flags.help) {
      process.stdout.write(`${SEARCH_HELP}\n`);
      return 0;
    }
    const [store, ...extra] = positional;
    if (store === undefined || extra.length) throw new Usage(`Name one store connection to search. Run: chunkd search --help`);
    if (flags.collection === undefined) throw new Usage('--collection is required: the collection to search. Run: chunkd search --help');
    if ((flags.query === undefined) === (flags.embedding === undefined))
      throw new Usage('Give either --query (a text) or --embedding (a JSON list of numbers).');
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
    const settings = readSettings(env);
    exportPluginSettings(settings);
    const registry = await discover(settings.pluginsDir);
    stores = Stores.fromSettings(registry, settings);
    const hits = await stores.search(store, {
      collection: String(flags.collection),
      ...(flags.query === undefined ? {} : { query: String(flags.query) }),
      ...(embedding === undefined ? {} : { embedding }),
      k,
      ...(flags.document === undefined ? {} : { filter: { document: String(flags.document) } }),
    });
    for (const h of hits)
      process.stdout.write(
        `${JSON.stringify({ id: h.id, text: h.text, start_index: h.start_index, end_index: h.end_index, token_count: h.token_count, metadata: { ...h.metadata, document: h.document }, score: h.score })}\n`,
      );
    return 0;
  } catch (e) {
    if (e instanceof Usage) {
      process.stderr.write(`${e.message}\n`);
      return 2;
    }
    if (isChunkdError(e)) {
      process.stderr.write(`${e.message}\n`);
      return e.status >= 500 ? 1 : 2;
    }
    throw e;
  } finally {
    await stores?.close();
  }
}
