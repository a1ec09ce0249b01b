import { join } from 'node:path';
import type { Embedder } from '../embedder-contract.js';
import { batches, normalize } from '../vectors.js';
import { openOnnx, readJson, tokenModel, type OnnxTokenModel, type OrtTensor } from './onnx-tokens.js';

type Pooling = 'mean' | 'cls' | 'max';
const BATCH = 32;

/**
 * A sentence encoder exported to ONNX (model.onnx + tokenizer.json, the layout of
 * sentence-transformers' ONNX exports): token vectors pooled as 1_Pooling/config.json says (mean
 * by default, over the attention mask), normalised unless modules.json lists no Normalize step.
 * Runs on onnxruntime-node, an optional package: missing, the caller gets a 501 with the install line.
 */
export async function loadOnnx(dir: string, file: string, name: string): Promise<Embedder> {
  const opened = await openOnnx(dir, file, name, 'ONNX embedding model');
  const { ort, session, tokenizer, bad } = opened;
  const pooling = readPooling(await readJson(dir, join('1_Pooling', 'config.json')));
  const unit = readNormalize(await readJson(dir, 'modules.json'));
  const maxLength = tokenizer.maxLength ?? (await readJson<{ max_seq_length?: number }>(dir, 'sentence_bert_config.json'))?.max_seq_length ?? 512;
  const output = ['sentence_embedding', 'last_hidden_state', 'token_embeddings'].find((o) => session.outputNames.includes(o)) ?? session.outputNames[0]!;

  const run = async (texts: string[]): Promise<Float32Array[]> => {
    const ids = texts.map((t) => tokenizer.ids(t, true).slice(0, maxLength));
    const width = Math.max(1, ...ids.map((x) => x.length));
    const n = texts.length * width;
    const inputIds = new BigInt64Array(n).fill(BigInt(tokenizer.padId));
    const mask = new BigInt64Array(n);
    ids.forEach((row, b) =>
      row.forEach((id, t) => {
        inputIds[b * width + t] = BigInt(id);
        mask[b * width + t] = 1n;
      }),
    );
    const feeds: Record<string, OrtTensor> = {};
    const dims = [texts.length, width];
    for (const input of session.inputNames) {
      if (input === 'input_ids') feeds[input] = new ort.Tensor('int64', inputIds, dims);
      else if (input === 'attention_mask') feeds[input] = new ort.Tensor('int64', mask, dims);
      else if (input === 'token_type_ids') feeds[input] = new ort.Tensor('int64', new BigInt64Array(n), dims);
      else throw bad(`unsupported model input '${input}'.`);
    }
    const out = (await session.run(feeds))[output]!;
    if (!(out.data instanceof Float32Array)) throw bad(`output '${output}' is not float32.`);
    const vectors =
      out.dims.length === 2
        ? split(out.data, texts.length, out.dims[1]!)
        : pool(
            out.data,
            out.dims,
            ids.map((x) => x.length),
            pooling,
          );
    return unit ? vectors.map(normalize) : vectors;
  };

  const probe = await run(['a']);
  const dimension = probe[0]!.length;
  const tokenOutput = ['last_hidden_state', 'token_embeddings'].find((o) => session.outputNames.includes(o));
  let tokens: Promise<OnnxTokenModel> | undefined;
  return {
    name,
    dimension,
    tokenizer,
    async embed(texts) {
      const out: Float32Array[] = [];
      for (const batch of batches(texts, BATCH)) out.push(...(await run(batch)));
      return out;
    },
    async tokenVectors(text) {
      if (!tokenOutput)
        throw bad(
          `late chunking needs token vectors, and the model has no last_hidden_state or token_embeddings output (outputs: ${session.outputNames.join(', ')}). Export it with its last hidden state as an output.`,
        );
      const model = await (tokens ??= tokenModel(dir, name, opened));
      const ids = tokenizer.ids(text, false);
      const ends = tokenizer.ends(text);
      if (ids.length !== ends.length) throw bad('its tokenizer gives token ids and token offsets of different lengths for this text.');
      // A quarter of a window shared between neighbours: every token keeps at least an eighth of a window of context on each side (except at the text's ends), for 4/3 the cost of disjoint windows.
      const { rows } = await model.tokenRows(ids, Math.floor(model.window / 4), tokenOutput);
      return { ends, vectors: rows };
    },
  };
}

function split(data: Float32Array, rows: number, dim: number): Float32Array[] {
  return Array.from({ length: rows }, (_, b) => data.slice(b * dim, (b + 1) * dim));
}

/** Pool [batch, tokens, dim] over each row's real (unpadded) tokens. */
function pool(data: Float32Array, dims: readonly number[], lengths: number[], how: Pooling): Float32Array[] {
  const [, width, dim] = dims as [number, number, number];
  return lengths.map((len, b) => {
    const v = new Float32Array(dim).fill(how === 'max' ? -Infinity : 0);
    const count = how === 'cls' ? 1 : Math.max(1, len);
    for (let t = 0; t < count; t++) {
      const base = (b * width + t) * dim;
      for (let d = 0; d < dim; d++) v[d] = how === 'max' ? Math.max(v[d]!, data[base + d]!) : v[d]! + data[base + d]!;
    }
    if (how === 'mean') for (let d = 0; d < dim; d++) v[d]! /= count;
    return v;
  });
}

function readPooling(c: Record<string, boolean> | undefined): Pooling {
  if (c?.pooling_mode_cls_token) return 'cls';
  if (c?.pooling_mode_max_tokens) return 'max';
  return 'mean';
}

/** sentence-transformers lists a Normalize module when the model's vectors are meant to be unit length. */
function readNormalize(modules: { type?: string }[] | undefined): boolean {
  return !Array.isArray(modules) || modules.some((m) => m.type?.endsWith('Normalize'));
}
