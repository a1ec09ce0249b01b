/**
 * The write step of a pipeline (`{"type": "write", "store": "default", "config": {"collection":
 * "docs"}}`, last): checked when the pipeline is written, and made a runner step (its plugin the
 * connection's handshake) with an embedding step before it when the pipeline has none.
 */
import Type from '#typebox';
import { CollectionName } from '../../kernel/handshake.js';
import type { Chunk } from '../../kernel/chunk.js';
import { ChunkdError, type Issue } from '../../kernel/errors.js';
import { EMBEDDED_MODEL } from '../../kernel/fields.js';
import type { Plugin, Registry } from '../../kernel/registry.js';
import { parseConfig } from '../../kernel/request.js';
import type { RunnerStep, StoreTarget } from '../../kernel/engine/index.js';
import { unknownNameMessage } from '../../kernel/suggest.js';
import { compileValidator } from '../../kernel/validation.js';
import { connectionFieldIssues } from '../stores/refuse.js';
import type { DocumentMeta, StoresService } from '../stores/service.js';
import { storesSettingText } from '../settings.js';
import { PipelineStep } from '../../wire/pipelines.js';

export { CollectionName };

export const WriteConfig = Type.Object(
  {
    collection: CollectionName,
    embedding_model: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 400,
        description:
          'Used only when no step before this one embeds the chunks: the model to embed them with. Without it, the model the collection was written with (the built-in one for a new collection).',
      }),
    ),
  },
  { additionalProperties: false },
);

const validateWriteConfig = compileValidator<{ collection: string; embedding_model?: string }>(WriteConfig);

/** A write step's keys as the connection-field allowlist holds them: a pipeline step's, its config a write step's. */
const WriteStepKeys = Type.Object({ ...PipelineStep.properties, config: WriteConfig }, { additionalProperties: false });

/** What a write step names, as stored. */
export interface WriteStepShape {
  type: 'write';
  store?: string;
  config?: Record<string, unknown>;
}

/** No stores on this surface (a worker, or a caller that never writes): a write step is refused. */
const noStores = 'This server has no store connections here';

/** Check a write step: a connection this server has, a valid config, no connection field anywhere; issues at `at`. Returns it as stored. */
export function checkWriteStep(
  step: WriteStepShape & Record<string, unknown>,
  at: (...rest: (string | number)[]) => (string | number)[],
  stores: StoresService | undefined,
  issues: Issue[],
): WriteStepShape | undefined {
  const before = issues.length;
  issues.push(...connectionFieldIssues(step, WriteStepKeys, undefined, at()));
  if (issues.length > before) return undefined;
  const names = stores?.names() ?? [];
  if (step.store === undefined) {
    issues.push({
      loc: at('store'),
      msg: `Field required: add 'store', one of the server's store connections (${names.join(', ') || 'none'}; GET /v1/stores lists them).`,
      type: 'missing',
    });
  } else if (!names.includes(step.store)) {
    const msg = names.length
      ? unknownNameMessage('store', step.store, names) + ` Connections are server settings (${storesSettingText()}).`
      : `${noStores}: a write step cannot run. Connections are server settings (${storesSettingText()}).`;
    issues.push({ loc: at('store'), msg, type: 'unknown_store' });
  }
  let config: Record<string, unknown> | undefined;
  try {
    config = validateWriteConfig(structuredClone(step.config ?? {}), at('config'));
  } catch (e) {
    if (e instanceof ChunkdError && Array.isArray(e.detail)) issues.push(...e.detail);
    else throw e;
  }
  if (issues.length > before) return undefined;
  return { type: 'write', store: step.store, config };
}

/**
 * A write step's store as a replica set refuses it when the pipeline or job is made, with the
 * 409 a run of it would get (a store on this replica's disk): never accepted, then failing each
 * document. A store this server does not have is left to the step's own check.
 */
export function checkWriteTarget(steps: readonly { type: string; store?: string }[], stores: StoresService | undefined): void {
  const store = steps.find((s) => s.type === 'write')?.store;
  if (store !== undefined && stores?.names().includes(store)) stores.checkWritable?.(store);
}

/** The plugin and config of the step that sets embeddings (a chunker that embeds, the embeddings refinery): its model. */
export function embeddingModelOf(steps: readonly RunnerStep[]): string | undefined {
  for (const { plugin, config } of [...steps].reverse()) {
    if (plugin.manifest.embeds && typeof config.embedding_model === 'string') return config.embedding_model;
  }
  return undefined;
}

/** The collection's recorded model, or null for a collection not yet written (or a store that says none). */
async function recordedModel(stores: StoresService, store: string, collection: string): Promise<string | null> {
  // This store alone: listing every store would wait on one that does not answer.
  if (stores.model) return stores.model(store, collection);
  const listing = (await stores.list()).find((s) => s.name === store);
  return listing?.collections.find((c) => c.name === collection)?.model ?? null;
}

/** Two models for one collection: a 409 that names both (and what to do). */
export const modelConflict = (store: string, collection: string, recorded: string, given: string): ChunkdError =>
  new ChunkdError(
    'CONFLICT',
    `Collection '${collection}' of store '${store}' holds vectors of the model '${recorded}', not '${given}': embed with '${recorded}', or write to another collection.`,
  );

/**
 * The runner steps a write step adds after `steps` (the pipeline's other steps, resolved): an
 * embedding step when none of them embeds (with the step's embedding_model, else the collection's
 * model, else the built-in one), then the write itself. `documentId(i)` names document i of the
 * call, undefined for its text's digest.
 */
export async function writeSteps(
  step: WriteStepShape,
  steps: readonly RunnerStep[],
  {
    registry,
    stores,
    documentId,
    documentMeta,
    stale,
  }: {
    registry: Pick<Registry, 'find'>;
    stores: StoresService | undefined;
    documentId: (index: number) => string | undefined;
    /** Document i's name and user metadata, written on each of its rows. */
    documentMeta?: (index: number) => DocumentMeta | undefined;
    stale: (why: string) => ChunkdError;
  },
): Promise<RunnerStep[]> {
  const store = step.store ?? '';
  const { collection, embedding_model } = (step.config ?? {}) as { collection: string; embedding_model?: string };
  if (!stores) throw new ChunkdError('BAD_REQUEST', `${noStores}: the pipeline's write step cannot run on this surface.`);
  const handshake = stores.handshakeOf(store);
  const plugin = handshake === undefined ? undefined : registry.find('handshake', handshake);
  if (!plugin) throw stale(`writes to the store '${store}', which this server does not have (its connections: ${stores.names().join(', ') || 'none'})`);
  const recorded = await recordedModel(stores, store, collection);
  const out: RunnerStep[] = [];
  let model = embeddingModelOf(steps);
  if (model === undefined) {
    model = embedding_model ?? recorded ?? EMBEDDED_MODEL;
    out.push(embeddingStep(registry, model));
  }
  if (recorded !== null && recorded !== model) throw modelConflict(store, collection, recorded, model);
  out.push({ plugin, config: { answer_embeddings: out.length === 0 }, target: storeTarget(stores, store, collection, model, documentId, documentMeta) });
  return out;
}

/** Where a write step's chunks go: this connection's collection, each document under its id (else its text's digest). */
export const storeTarget = (
  stores: StoresService,
  store: string,
  collection: string,
  model: string,
  documentId: (index: number) => string | undefined,
  documentMeta?: (index: number) => DocumentMeta | undefined,
): StoreTarget => ({
  write: (index: number, digest: string, chunks: Chunk[]) => stores.write(store, collection, documentId(index) ?? digest, chunks, model, documentMeta?.(index)),
});

function embeddingStep(registry: Pick<Registry, 'find'>, model: string): RunnerStep {
  const plugin: Plugin | undefined = registry.find('refinery', 'embeddings');
  if (!plugin)
    throw new ChunkdError(
      'BAD_REQUEST',
      "A write step embeds the chunks with the 'embeddings' refinery, which this server does not have: add an embedding step before it.",
    );
  return { plugin, config: parseConfig(plugin, { embedding_model: model }, ['steps']) };
}
