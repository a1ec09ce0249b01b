/** The semantic chunker with its built-in embedding model: no peer runs offline with the same model, so it is measured alone. */
import { ours, size } from '../cases.js';
import { prose } from '../corpora.js';
import type { Options, ThroughputSuite } from '../harness.js';
import { fmtSize } from '../table.js';

export const semanticSuite: ThroughputSuite = {
  kind: 'throughput',
  name: 'semantic',
  title: 'Semantic chunker',
  about: (o) =>
    `${fmtSize(size(o, 256_000, 32_000))} of English prose, the built-in static embedding model, default config. No peer: chonkiejs' SemanticChunker and LangChain's need an embedding model from a hub or an API, which the bench cannot reach, so there is no same-job comparison to make.`,
  cases: (o: Options) => [ours(o, 'ours', 'built-in model, 512', 'semantic', { chunk_size: 512 }, () => [prose(size(o, 256_000, 32_000))])],
  targets: [],
};
