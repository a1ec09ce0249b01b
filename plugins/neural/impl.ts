import type { Static } from '#typebox';
import { BoundedCache, loadOnnxTokenModel, locateModelDir, tokensIn, type ChunkerImpl, type OnnxTokenModel, type Span } from '../../kernel/index.js';
import { cutsToRanges, entities, mergeClose } from './entities.js';
import type { NeuralConfig } from './index.js';

const needs = (name: string) => ({
  what: 'Token-classification model',
  files: 'model.onnx (or onnx/model.onnx), tokenizer.json and config.json with id2label',
  hint: `Where a model has no ONNX export, make one with \`optimum-cli export onnx --task token-classification --model ${name} <dir>\` (pip install optimum[exporters]) and name <dir>, or copy its files into the cache.`,
});

/** Chonkie's strides (tokens shared by consecutive windows) for the Chonky models; other models share half a window. */
const STRIDES: Record<string, number> = {
  'mirth/chonky_distilbert_base_uncased_1': 256,
  'mirth/chonky_modernbert_base_1': 512,
  'mirth/chonky_modernbert_large_1': 512,
};

/**
 * Loaded models by canonical directory, however the name spells it (a session can take a GiB):
 * at most this many, least recently used first out; a failed load is not kept.
 */
export const NEURAL_MODEL_CACHE = 4;
const cache = new BoundedCache<Promise<OnnxTokenModel>>(NEURAL_MODEL_CACHE, Infinity);

/** One session per model directory, shared by every config naming it. */
async function loadModel(name: string): Promise<OnnxTokenModel> {
  const dir = await locateModelDir(name, needs(name));
  let m = cache.get(dir);
  if (!m) {
    m = loadOnnxTokenModel(dir, name, 'token-classification model');
    cache.set(dir, m);
    m.catch(() => cache.delete(dir));
  }
  return m;
}

/**
 * Chonkie's NeuralChunker: the model labels every token; runs of non-O labels are split points
 * (a chunk ends where one ends); split points too close to the previous one replace it.
 */
export async function create(config: Static<typeof NeuralConfig>): Promise<ChunkerImpl> {
  const model = await loadModel(config.model);
  const labels = labelsOf(model);
  const output = model.session.outputNames.includes('logits') ? 'logits' : model.session.outputNames[0]!;
  const overlap = STRIDES[config.model] ?? Math.floor(model.window / 2);
  return {
    async chunk(text): Promise<Span[]> {
      const ids = model.tokenizer.ids(text, false);
      const ends = model.tokenizer.ends(text);
      if (ids.length !== ends.length) throw model.bad('its tokenizer gives token ids and token offsets of different lengths for this text.');
      const { rows, dim } = await model.tokenRows(ids, overlap, output);
      if (rows.length && dim !== labels.length)
        throw model.bad(`output '${output}' has ${dim} scores per token but config.json names ${labels.length} labels.`);
      const found = mergeClose(
        entities(
          text,
          ends,
          rows.map((r) => labels[argmax(r)]!),
        ),
        config.min_characters_per_chunk,
      );
      return cutsToRanges(found, text.length).map(([start, end]) => ({ start, end, tokenCount: tokensIn(ends, start, end) }));
    },
  };
}

/** The most probable label (softmax is monotonic: the largest logit). */
function argmax(row: Float32Array): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i]! > row[best]!) best = i;
  return best;
}

function labelsOf(model: OnnxTokenModel): string[] {
  const id2label = model.config?.id2label;
  if (!id2label || typeof id2label !== 'object') throw model.bad('config.json with an id2label map (label of each output) is missing.');
  const entries = Object.entries(id2label as Record<string, unknown>);
  const labels: string[] = [];
  for (const [id, label] of entries) {
    const i = Number(id);
    if (!Number.isInteger(i) || i < 0 || i >= entries.length || typeof label !== 'string')
      throw model.bad('config.json id2label must map 0..n-1 to label names.');
    labels[i] = label;
  }
  if (labels.length < 2 || labels.includes(undefined as unknown as string))
    throw model.bad('config.json id2label must map 0..n-1 to label names, at least two.');
  return labels;
}
