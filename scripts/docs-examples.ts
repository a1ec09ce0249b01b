import type { Example } from '../server/doc-examples.js';

/**
 * The README's request examples, in README order and run in that order on one fresh server: the
 * pipeline examples use the id the create example captured, as a reader pasting them would.
 */
export const README_EXAMPLES: Example[] = [
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
  { name: 'example:error-validation', requests: [{ path: '/v1/chunk/token', body: { text: 5, chunk_size: 0 } }] },
  { name: 'example:auth-validate', requests: [{ path: '/v1/auth/validate', headers: { authorization: 'Bearer my-key' } }] },
  {
    name: 'example:client-default-model',
    requests: [{ path: '/v1/chunk/semantic', body: { text: 'Knead the dough. Bake the bread.', embedding_model: 'minishlab/potion-base-8M' } }],
  },
];
