/** A collection's management beside search (server/routes/stores.ts): drop it whole, list its documents page by page. */
import Type from '#typebox';
import { ChunkdError } from '../../kernel/errors.js';
import type { RouteDef } from '../route.js';
import { errorResponses } from '../../wire/responses.js';
import { DocumentPage, MAX_DOCUMENTS_PAGE } from '../../wire/stores.js';
import type { StoresService } from '../../service/stores/service.js';
import { queryReader } from '../query.js';

const DocumentsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DOCUMENTS_PAGE, default: 100, description: `Documents per page (1–${MAX_DOCUMENTS_PAGE}).` })),
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1024, description: "Where this page starts: the previous page's `next_cursor`. Without it, the first page." }),
  ),
});
const readDocumentsQuery = queryReader<{ limit: number; cursor?: string }>(DocumentsQuery);

/** A service call a handshake may not offer (an older Stores stand-in): a 400 that says so. */
const offered = <T>(method: T | undefined, what: string): T => {
  if (!method) throw new ChunkdError('BAD_REQUEST', `This server's stores cannot ${what}.`);
  return method;
};

export function collectionRoutes(stores: () => StoresService): Omit<RouteDef, 'tag'>[] {
  return [
    {
      method: 'delete',
      path: '/v1/stores/:name/collections/:collection',
      summary: 'Drop a collection: its chunks, and the model it recorded (a new write starts it again, with any model).',
      responses: {
        204: { description: 'Dropped; no body.' },
        ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'BAD_REQUEST', 'NOT_FOUND', 'CONFLICT', 'UNAVAILABLE'),
      },
      async handler(ctx) {
        const s = stores();
        await offered(s.deleteCollection?.bind(s), 'drop a collection')(ctx.params.name!, ctx.params.collection!);
        ctx.status = 204;
      },
    },
    {
      method: 'get',
      path: '/v1/stores/:name/collections/:collection/documents',
      summary: "A collection's documents, by id: each with its name and how many chunks it has, a page at a time.",
      query: DocumentsQuery,
      responses: {
        200: { description: 'One page; `next_cursor` fetches the next.', schema: DocumentPage },
        ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'BAD_REQUEST', 'NOT_FOUND', 'VALIDATION', 'UNAVAILABLE'),
      },
      async handler(ctx) {
        const { limit, cursor } = readDocumentsQuery(ctx);
        const s = stores();
        ctx.body = await offered(s.documents?.bind(s), "list a collection's documents")(ctx.params.name!, ctx.params.collection!, {
          limit: limit ?? 100,
          ...(cursor ? { cursor } : {}),
        });
      },
    },
  ];
}
