import Type from '#typebox';
import { defineHandshake } from '../../kernel/index.js';

export const ChromaConfig = Type.Object({
  // No path and no credentials in the URL: the client joins only scheme, host and port, and a
  // password in a URL would escape the redaction that covers `token`.
  url: Type.String({
    pattern: '^https?://[^/?#@\\s]+/?$',
    description: 'The Chroma server: http(s)://host:port, with no path and no credentials (those go in token).',
    examples: ['http://127.0.0.1:8000'],
  }),
  tenant: Type.String({ minLength: 1, default: 'default_tenant', description: 'The Chroma tenant that holds the database.' }),
  database: Type.String({ minLength: 1, default: 'default_database', description: 'The Chroma database that holds the collections (it must exist).' }),
  token: Type.String({ default: '', secret: true, description: 'Sent as the x-chroma-token header when set (a server or proxy with token authentication).' }),
});

export default defineHandshake({
  name: 'chroma',
  summary: 'Chroma, a server reached by URL: one collection per chunkd collection, cosine vector search.',
  extras: [{ name: 'chroma', packages: ['chromadb'], reason: "Chroma's JavaScript client (HTTP; it runs no server of its own)." }],
  config: ChromaConfig,
  // Chroma's where_document filters by substring but does not rank: no text search.
  capabilities: { vector: true, text: false },
  // A server every replica reaches by its URL.
  local: () => false,
  load: () => import('./impl.js'),
});
