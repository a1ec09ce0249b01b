import type { Example } from '../server/doc-examples.js';

/**
 * The READMEs' request examples, in README order and run in that order on one fresh server: the
 * pipeline examples use the id the create example captured, as a reader pasting them would.
 */
export const DOC_EXAMPLES: Example[] = [
  { name: 'example:quick-start', requests: [{ path: '/v1/chunk/token', body: { text: 'hello world', chunk_size: 5 } }] },
  {
    name: 'example:pipeline-create',
    requests: [
      {
        path: '/v1/pipelines',
        body: { name: 'docs-small', description: 'Token windows of 8 characters.', steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 8 } }] },
        capture: 'id',
        show: 'none',
      },
      { path: '/v1/pipelines/$id' },
    ],
  },
  { name: 'example:pipeline-list', requests: [{ path: '/v1/pipelines', show: 'none' }] },
  {
    name: 'example:pipeline-page',
    requests: [
      { path: '/v1/pipelines', body: { name: 'docs-paragraphs', steps: [{ type: 'chunk', chunker: 'recursive', config: { chunk_size: 256 } }] }, show: 'quiet' },
      { path: '/v1/pipelines?limit=1', show: { headers: ['X-Total-Count', 'Link'] } },
    ],
  },
  {
    name: 'example:pipeline-update',
    requests: [{ method: 'PUT', path: '/v1/pipelines/$id', body: { steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 8, chunk_overlap: 2 } }] }, show: 'none' }],
  },
  { name: 'example:pipeline-execute', requests: [{ path: '/v1/pipelines/$id/execute', body: { text: 'hello pipeline world' } }] },
  { name: 'example:pipeline-delete', requests: [{ method: 'DELETE', path: '/v1/pipelines/$id' }] },
  {
    name: 'example:pipeline-invalid',
    requests: [
      {
        path: '/v1/pipelines',
        body: { name: 'typo', steps: [{ type: 'chunk', chunker: 'tokn' }, { type: 'chunk', chunker: 'token', config: { chunk_size: 0 } }] },
      },
    ],
  },
  {
    name: 'example:store-write',
    requests: [
      {
        path: '/v1/pipelines',
        body: { name: 'docs-stored', steps: [{ type: 'chunk', chunker: 'recursive', config: { chunk_size: 16 } }, { type: 'write', store: 'default', config: { collection: 'docs' } }] },
        capture: 'id',
        show: 'none',
      },
      { path: '/v1/pipelines/$id/execute', body: { text: 'Rivers flood valleys. Bees make honey in summer.', document: 'doc-1' } },
      { path: '/v1/stores' },
    ],
  },
  { name: 'example:store-search', requests: [{ path: '/v1/stores/default/search', body: { collection: 'docs', query: 'honey', k: 1 } }] },
  { name: 'example:store-delete', requests: [{ method: 'DELETE', path: '/v1/stores/default/collections/docs/documents/doc-1' }] },
  { name: 'example:error-validation', requests: [{ path: '/v1/chunk/token', body: { text: 5, chunk_size: 0 } }] },
  { name: 'example:auth-validate', requests: [{ path: '/v1/auth/validate', headers: { authorization: 'Bearer my-key' } }] },
  {
    name: 'example:client-default-model',
    requests: [{ path: '/v1/chunk/semantic', body: { text: 'Knead the dough. Bake the bread.', embedding_model: 'minishlab/potion-base-8M' } }],
  },
  {
    name: 'example:recursive',
    file: 'plugins/recursive/README.md',
    requests: [
      { path: '/v1/chunk/recursive', body: { text: 'Supercalifragilisticexpialidocious word', chunk_size: 10, min_characters_per_chunk: 1 }, show: 'spans' },
      { path: '/v1/chunk/recursive', body: { text: 'Query paragraph river quick water.', chunk_size: 32, min_characters_per_chunk: 12 }, show: 'spans', note: "Chonkie's rule" },
      { path: '/v1/chunk/recursive', body: { text: 'Query paragraph river quick water.', chunk_size: 32, min_characters_per_chunk: 12, min_characters_rule: 'forward' }, show: 'spans' },
      { path: '/v1/chunk/recursive', body: { text: '# Title\n\nIntro.\n\n## Part\n\nMore text.', recipe: 'markdown', chunk_size: 16 }, show: 'spans', note: 'the default minimum, 24 bytes, joins the short lines' },
      { path: '/v1/chunk/recursive', body: { text: '这是第一句话。这是第二句话。', lang: 'zh', chunk_size: 8, min_characters_per_chunk: 1 }, show: 'spans' },
    ],
  },
  {
    name: 'example:semantic',
    file: 'plugins/semantic/README.md',
    requests: [
      {
        path: '/v1/chunk/semantic',
        body: { text: 'Knead the dough and let it rise. Bake the bread until golden. The telescope tracks distant galaxies. Astronomers measure the light of stars.', similarity_window: 1, filter_window: 3, filter_polyorder: 2 },
        show: 'spans',
        note: 'two chunks, with the embedded model',
      },
    ],
  },
];
