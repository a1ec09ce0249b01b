import { ChunkdError } from '../../kernel/errors.js';
import { bodyCheck } from '../../wire/body-check.js';
import { bodyReader } from '../ignored-keys.js';
import type { RouteDef, RouteModule } from '../route.js';
import { BODY_ERRORS, errorResponses } from '../../wire/responses.js';
import { connectionFieldIssues } from '../../service/stores/refuse.js';
import { SEARCH_MODE_HEADER, SearchModeField, SearchResult, StoreList, StoreSearch } from '../../wire/stores.js';
import { collectionRoutes } from './store-collections.js';
import { type StoreHit, type StoreQuery, type StoresService } from '../../service/stores/service.js';
import { storesSettingText } from '../../service/settings.js';

type SearchBody = Omit<StoreQuery, 'k'> & { k: number };
const checkSearch = bodyCheck<SearchBody>(StoreSearch);

/** The largest search body read: a query text or a vector, far below --max-body-bytes. */
const SEARCH_BODY_BYTES = 1 << 20;

/** A hit as the wire has it: a chunk with `metadata.document`, and its score. */
const wireHit = ({ id, document, text, start_index, end_index, token_count, metadata, score }: StoreHit) => ({
  id,
  text,
  start_index,
  end_index,
  token_count,
  metadata: { ...metadata, document },
  score,
});

/** The server's store connections: list them, search a collection, delete a document's chunks. Writing is a pipeline's write step. */
export const storeRoutes: RouteModule = (deps) => {
  const stores = (): StoresService => {
    const s = deps.services.stores;
    if (!s) throw new ChunkdError('NOT_FOUND', `This server has no store connections (${storesSettingText()}).`);
    return s;
  };
  const readSearch = bodyReader((raw, onIgnored) => {
    // Checked before the schema: a URL or a credential is refused by name whatever else is wrong.
    const connection = connectionFieldIssues(raw, StoreSearch, deps.registry, ['body']);
    if (connection.length) throw new ChunkdError('VALIDATION', connection);
    const body = checkSearch(raw, onIgnored);
    if ((body.query === undefined) === (body.embedding === undefined)) {
      throw new ChunkdError('VALIDATION', [
        {
          loc: ['body'],
          msg: `Send either query (a text) or embedding (a vector), not ${body.query === undefined ? 'neither' : 'both'}.`,
          type: 'value_error',
        },
      ]);
    }
    return body;
  });
  const route = (r: Omit<RouteDef, 'tag'>): RouteDef => ({ ...r, tag: 'stores' });
  return [
    route({
      method: 'get',
      path: '/v1/stores',
      summary: "The server's store connections and their collections (never a URL, path or secret).",
      responses: {
        200: { description: 'Each connection: its handshake, whether it is local to this replica, and its collections.', schema: StoreList },
        ...errorResponses('UNAUTHORIZED', 'UNAVAILABLE'),
      },
      async handler(ctx) {
        ctx.body = (await stores().list()).map(({ name, handshake, local, modes, collections, error }) => ({
          name,
          handshake,
          local,
          modes,
          collections,
          ...(error === undefined ? {} : { error }),
        }));
      },
    }),
    route({
      method: 'post',
      path: '/v1/stores/:name/search',
      summary: "Search a collection by a text (embedded with the collection's model) or a vector: its closest chunks, best first, each with its score.",
      body: StoreSearch,
      bodyName: 'StoreSearch',
      maxBodyBytes: SEARCH_BODY_BYTES,
      responses: {
        200: {
          description: 'The chunks, best first.',
          schema: SearchResult,
          headers: { [SEARCH_MODE_HEADER]: { description: 'The mode the search ran: the one asked, or the collection’s default.', schema: SearchModeField } },
        },
        ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', ...BODY_ERRORS, 'MISSING_EXTRA', 'UPSTREAM', 'TIMEOUT', 'UNAVAILABLE'),
      },
      async handler(ctx) {
        const body = readSearch(ctx)(ctx.request.body);
        const { mode, hits } = await stores().searchWithMode(ctx.params.name!, body);
        ctx.set(SEARCH_MODE_HEADER, mode);
        ctx.body = hits.map(wireHit);
      },
    }),
    route({
      method: 'delete',
      path: '/v1/stores/:name/collections/:collection/documents/:document',
      summary: "Delete a document's chunks from a collection: they are gone from search.",
      responses: {
        204: { description: 'Deleted (also when the collection held none of its chunks); no body.' },
        ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'UNAVAILABLE'),
      },
      async handler(ctx) {
        const { name, collection, document } = ctx.params;
        await stores().deleteDocument(name!, collection!, document!);
        ctx.status = 204;
      },
    }),
    ...collectionRoutes(stores).map(route),
  ];
};
