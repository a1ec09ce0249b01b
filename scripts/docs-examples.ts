import type { Example } from './doc-examples.js';

/**
 * An example written by hand in its page, for shell lines a request cannot render (an upload, a
 * wait for a job, jq): `npm run docs` leaves it alone, and test/readme-examples.test.ts runs it and
 * checks the answer it shows like any other.
 */
export interface HandWritten {
  name: string;
  file: string;
  handWritten: true;
}

export type DocExample = Example | HandWritten;

/**
 * The request examples of README.md, docs/ and the plugin READMEs. Each page's examples run in
 * this order, which is the page's, on a fresh server of their own (in one bash session in the
 * examples test), as a reader pasting that page would run them: a pipeline example uses the id the
 * create example before it captured. `npm run docs` runs the generated ones on one server, in this
 * order, so a generated example may depend only on what its own page did before it (the pipeline
 * count of example:pipeline-page); the hand-written ones, which only the test runs, come last.
 */
export const DOC_EXAMPLES: DocExample[] = [
  { name: 'example:quick-start', file: 'README.md', requests: [{ path: '/v1/chunk/token', body: { text: 'hello world', chunk_size: 5 } }] },
  {
    name: 'example:pipeline-create',
    file: 'docs/pipelines.md',
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
  { name: 'example:pipeline-list', file: 'docs/pipelines.md', requests: [{ path: '/v1/pipelines', show: 'none' }] },
  {
    name: 'example:pipeline-page',
    file: 'docs/pipelines.md',
    requests: [
      {
        path: '/v1/pipelines',
        body: { name: 'docs-paragraphs', steps: [{ type: 'chunk', chunker: 'recursive', config: { chunk_size: 256 } }] },
        show: 'quiet',
      },
      { path: '/v1/pipelines?limit=1', show: { headers: ['X-Total-Count', 'Link'] } },
    ],
  },
  {
    name: 'example:pipeline-update',
    file: 'docs/pipelines.md',
    requests: [
      {
        method: 'PUT',
        path: '/v1/pipelines/$id',
        body: { steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 8, chunk_overlap: 2 } }] },
        show: 'none',
      },
    ],
  },
  { name: 'example:pipeline-execute', file: 'docs/pipelines.md', requests: [{ path: '/v1/pipelines/$id/execute', body: { text: 'hello pipeline world' } }] },
  { name: 'example:pipeline-delete', file: 'docs/pipelines.md', requests: [{ method: 'DELETE', path: '/v1/pipelines/$id' }] },
  {
    name: 'example:pipeline-invalid',
    file: 'docs/pipelines.md',
    requests: [
      {
        path: '/v1/pipelines',
        body: {
          name: 'typo',
          steps: [
            { type: 'chunk', chunker: 'tokn' },
            { type: 'chunk', chunker: 'token', config: { chunk_size: 0 } },
          ],
        },
      },
    ],
  },
  {
    name: 'example:store-write',
    file: 'docs/stores.md',
    requests: [
      {
        path: '/v1/pipelines',
        body: {
          name: 'docs-stored',
          steps: [
            { type: 'chunk', chunker: 'recursive', config: { chunk_size: 16 } },
            { type: 'write', store: 'default', config: { collection: 'docs' } },
          ],
        },
        capture: 'id',
        show: 'none',
      },
      { path: '/v1/pipelines/$id/execute', body: { text: 'Rivers flood valleys. Bees make honey in summer.', document: 'doc-1' } },
    ],
  },
  { name: 'example:store-list', file: 'docs/stores.md', requests: [{ path: '/v1/stores' }] },
  {
    name: 'example:store-search',
    file: 'docs/stores.md',
    requests: [{ path: '/v1/stores/default/search', body: { collection: 'docs', query: 'honey', k: 1 } }],
  },
  { name: 'example:store-delete', file: 'docs/stores.md', requests: [{ method: 'DELETE', path: '/v1/stores/default/collections/docs/documents/doc-1' }] },
  { name: 'example:error-validation', file: 'docs/errors.md', requests: [{ path: '/v1/chunk/token', body: { text: 5, chunk_size: 0 } }] },
  { name: 'example:auth-validate', file: 'docs/clients.md', requests: [{ path: '/v1/auth/validate', headers: { authorization: 'Bearer my-key' } }] },
  {
    name: 'example:client-default-model',
    file: 'docs/clients.md',
    requests: [{ path: '/v1/chunk/semantic', body: { text: 'Knead the dough. Bake the bread.', embedding_model: 'minishlab/potion-base-8M' } }],
  },
  {
    name: 'example:recursive',
    file: 'plugins/recursive/README.md',
    requests: [
      { path: '/v1/chunk/recursive', body: { text: 'Supercalifragilisticexpialidocious word', chunk_size: 10, min_characters_per_chunk: 1 }, show: 'spans' },
      {
        path: '/v1/chunk/recursive',
        body: { text: 'Query paragraph river quick water.', chunk_size: 32, min_characters_per_chunk: 12 },
        show: 'spans',
        note: "Chonkie's rule",
      },
      {
        path: '/v1/chunk/recursive',
        body: { text: 'Query paragraph river quick water.', chunk_size: 32, min_characters_per_chunk: 12, min_characters_rule: 'forward' },
        show: 'spans',
      },
      {
        path: '/v1/chunk/recursive',
        body: { text: '# Title\n\nIntro.\n\n## Part\n\nMore text.', recipe: 'markdown', chunk_size: 16 },
        show: 'spans',
        note: 'the default minimum, 24 bytes, joins the short lines',
      },
      { path: '/v1/chunk/recursive', body: { text: '这是第一句话。这是第二句话。', lang: 'zh', chunk_size: 8, min_characters_per_chunk: 1 }, show: 'spans' },
    ],
  },
  {
    name: 'example:semantic',
    file: 'plugins/semantic/README.md',
    requests: [
      {
        path: '/v1/chunk/semantic',
        body: {
          text: 'Knead the dough and let it rise. Bake the bread until golden. The telescope tracks distant galaxies. Astronomers measure the light of stars.',
          similarity_window: 1,
          filter_window: 3,
          filter_polyorder: 2,
        },
        show: 'spans',
        note: 'two chunks, with the embedded model',
      },
    ],
  },
  {
    name: 'example:readme-pipeline',
    file: 'README.md',
    requests: [
      { method: 'DELETE', path: '/v1/pipeline/short-paragraphs', show: 'quiet', note: 'one an earlier run made, if any: names are unique' },
      {
        path: '/v1/pipelines',
        body: { name: 'short-paragraphs', steps: [{ type: 'chunk', chunker: 'recursive', config: { chunk_size: 40 } }] },
        capture: 'pipeline',
        show: 'none',
      },
      { path: '/v1/pipelines/$pipeline/execute', body: { text: 'A first paragraph, short.\n\nA second paragraph, a little longer.' } },
    ],
  },
  ...handWritten('README.md', 'readme-upload', 'readme-job', 'readme-evaluate'),
  {
    name: 'example:readme-store',
    file: 'README.md',
    requests: [
      { method: 'DELETE', path: '/v1/pipeline/notes-stored', show: 'quiet', note: 'one an earlier run made, if any' },
      {
        path: '/v1/pipelines',
        body: {
          name: 'notes-stored',
          steps: [
            { type: 'chunk', chunker: 'sentence', config: { chunk_size: 24 } },
            { type: 'write', store: 'default', config: { collection: 'notes' } },
          ],
        },
        capture: 'stored',
        show: 'none',
      },
      { path: '/v1/pipelines/$stored/execute', body: { text: 'Rivers flood valleys. Bees make honey in summer.', document: 'doc-1' }, show: 'quiet' },
      { path: '/v1/stores/default/search', body: { collection: 'notes', query: 'honey', k: 1 } },
    ],
  },
  ...handWritten('docs/wire.md', 'ndjson'),
  ...handWritten('docs/pipelines.md', 'slug-create'),
  ...handWritten('docs/files.md', 'files-upload', 'files-chunk', 'process-markdown'),
  ...handWritten('docs/jobs.md', 'jobs-submit', 'jobs-status', 'jobs-results', 'jobs-cancel'),
  ...handWritten('docs/evaluation.md', 'evaluate'),
  ...handWritten('docs/cli.md', 'cli-chunk', 'cli-unknown-chunker'),
  ...handWritten('docs/from-a-folder-to-answers.md', 'folder-ingest', 'folder-search', 'folder-http', 'folder-clean-up'),
  ...handWritten(
    'docs/tutorial.md',
    'tutorial-health',
    'tutorial-upload',
    'tutorial-text',
    'tutorial-create',
    'tutorial-run',
    'tutorial-search',
    'tutorial-list',
    'tutorial-clean-up',
  ),
];

function handWritten(file: string, ...names: string[]): HandWritten[] {
  return names.map((name) => ({ name: `example:${name}`, file, handWritten: true }));
}

/** The examples `npm run docs` runs and writes. */
export const GENERATED: Example[] = DOC_EXAMPLES.filter((e): e is Example => !('handWritten' in e));
