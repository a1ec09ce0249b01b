/**
 * Tiny tokenizers and models written at test time: Hugging Face tokenizer.json files (WordLevel,
 * WordPiece, byte-level BPE), a Model2Vec directory and an ONNX sentence encoder, so that every
 * loader is exercised on real file formats without downloading anything.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import onnxProto from 'onnx-proto';
import './host.js';

const { onnx } = onnxProto;
import { writeSafetensors } from '../../kernel/embeddings/safetensors.js';

/**
 * Every tiny model lives under one models root, configured as an operator would (CHUNKD_MODELS_DIR,
 * what --models-dir sets): chunkd reads model files from nowhere else.
 */
export const MODELS_ROOT = mkdtempSync(join(tmpdir(), 'chunkd-models-'));
process.env.CHUNKD_MODELS_DIR = [process.env.CHUNKD_MODELS_DIR, MODELS_ROOT].filter(Boolean).join(',');

export const tempDir = (prefix = 'model-') => mkdtempSync(join(MODELS_ROOT, prefix));

const added = (tokens: string[]) =>
  tokens.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }));

const vocabOf = (words: string[]) => Object.fromEntries(words.map((w, i) => [w, i]));

/** WordLevel, lower-cased, split on whitespace and punctuation; id 0 is [UNK]. */
export function wordLevelJson(words: string[]): object {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added(['[UNK]']),
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab: vocabOf(['[UNK]', ...words]), unk_token: '[UNK]' },
  };
}

export const WORDPIECE_SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];

/** BERT-style uncased WordPiece (accents stripped) with [CLS] … [SEP] added for models. */
export function wordPieceJson(pieces: string[]): object {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added(WORDPIECE_SPECIALS),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: vocabOf([...WORDPIECE_SPECIALS, ...pieces]),
    },
  };
}

/** GPT-2's byte → printable character table. */
export function byteToUnicode(): string[] {
  const out: string[] = [];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    out.push(String.fromCharCode(printable ? b : 256 + n++));
  }
  return out;
}

/** Byte-level BPE over all 256 bytes plus the given merges (e.g. ['l l', 'll o']). */
export function byteBpeJson(merges: string[]): object {
  const vocab = [...byteToUnicode(), ...merges.map((m) => m.replace(' ', ''))];
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      vocab: vocabOf(vocab),
      merges,
    },
  };
}

export function writeTokenizer(json: object, dir = tempDir()): string {
  const file = join(dir, 'tokenizer.json');
  writeFileSync(file, JSON.stringify(json));
  return file;
}

/** A Model2Vec directory: F32 embeddings, one row per word (row 0 [UNK]), optional per-token weights. */
export async function writeModel2Vec(words: string[], rows: number[][], opts: { weights?: number[]; normalize?: boolean } = {}): Promise<string> {
  const dir = tempDir();
  writeTokenizer(wordLevelJson(words), dir);
  const dim = rows[0]!.length;
  const table = Float32Array.from([...new Array(dim).fill(0), ...rows.flat()]);
  const tensors: Parameters<typeof writeSafetensors>[1] = { embeddings: { dtype: 'F32', shape: [words.length + 1, dim], bytes: table } };
  if (opts.weights) tensors.weights = { dtype: 'F32', shape: [words.length + 1], bytes: Float32Array.from([0, ...opts.weights]) };
  await writeSafetensors(join(dir, 'model.safetensors'), tensors);
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'model2vec', normalize: opts.normalize ?? true, hidden_dim: dim }));
  return dir;
}

/**
 * An ONNX "sentence encoder" whose token vectors are rows of `table` (Gather over input_ids): the
 * provider's pooling over the attention mask is then checkable by hand. Tokenizer: WordPiece.
 */
export function writeOnnx(pieces: string[], table: number[][], pooling?: 'cls' | 'max'): string {
  const dir = tempDir();
  writeTokenizer(wordPieceJson(pieces), dir);
  const [vocab, dim] = [table.length, table[0]!.length];
  const ids = {
    name: 'input_ids',
    type: { tensorType: { elemType: onnx.TensorProto.DataType.INT64, shape: { dim: [{ dimParam: 'batch' }, { dimParam: 'seq' }] } } },
  };
  const mask = { ...ids, name: 'attention_mask' };
  const out = {
    name: 'last_hidden_state',
    type: { tensorType: { elemType: onnx.TensorProto.DataType.FLOAT, shape: { dim: [{ dimParam: 'batch' }, { dimParam: 'seq' }, { dimValue: dim }] } } },
  };
  const model = onnx.ModelProto.encode({
    irVersion: 8,
    producerName: 'chunkd-tests',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: 'tiny-encoder',
      initializer: [{ name: 'table', dims: [vocab, dim], dataType: onnx.TensorProto.DataType.FLOAT, floatData: table.flat() }],
      node: [
        {
          opType: 'Gather',
          input: ['table', 'input_ids'],
          output: ['last_hidden_state'],
          attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }],
        },
      ],
      input: [ids, mask],
      output: [out],
    },
  }).finish();
  writeFileSync(join(dir, 'model.onnx'), model);
  if (pooling) {
    mkdirSync(join(dir, '1_Pooling'));
    writeFileSync(
      join(dir, '1_Pooling', 'config.json'),
      JSON.stringify({ pooling_mode_cls_token: pooling === 'cls', pooling_mode_max_tokens: pooling === 'max', pooling_mode_mean_tokens: false }),
    );
  }
  return dir;
}

/** A Gather-based ONNX graph from input_ids (+ attention_mask) to one float output; extra nodes may follow the Gather into `out`. */
function gatherModel(name: string, table: number[][], output: string, extra: object[] = [], gathered = output): Uint8Array {
  const [vocab, dim] = [table.length, table[0]!.length];
  const ids = {
    name: 'input_ids',
    type: { tensorType: { elemType: onnx.TensorProto.DataType.INT64, shape: { dim: [{ dimParam: 'batch' }, { dimParam: 'seq' }] } } },
  };
  const mask = { ...ids, name: 'attention_mask' };
  const out = {
    name: output,
    type: { tensorType: { elemType: onnx.TensorProto.DataType.FLOAT, shape: { dim: [{ dimParam: 'batch' }, { dimParam: 'seq' }, { dimValue: dim }] } } },
  };
  return onnx.ModelProto.encode({
    irVersion: 8,
    producerName: 'chunkd-tests',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name,
      initializer: [{ name: 'table', dims: [vocab, dim], dataType: onnx.TensorProto.DataType.FLOAT, floatData: table.flat() }],
      node: [
        {
          opType: 'Gather',
          input: ['table', 'input_ids'],
          output: [gathered],
          attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }],
        },
        ...extra,
      ],
      input: [ids, mask],
      output: [out],
    },
  }).finish();
}

/**
 * An ONNX encoder whose token vectors depend on their window: each token's vector is its row of
 * `table` plus the mean of the rows of every token in the same run (special tokens included), so
 * late chunking's windowing shows in the numbers. Runs take at most `window` tokens.
 */
export function writeContextOnnx(pieces: string[], table: number[][], window: number): string {
  const dir = tempDir();
  writeTokenizer(wordPieceJson(pieces), dir);
  const extra = [
    {
      opType: 'ReduceMean',
      input: ['rows'],
      output: ['mean'],
      attribute: [
        { name: 'axes', type: onnx.AttributeProto.AttributeType.INTS, ints: [1] },
        { name: 'keepdims', type: onnx.AttributeProto.AttributeType.INT, i: 1 },
      ],
    },
    { opType: 'Add', input: ['rows', 'mean'], output: ['last_hidden_state'] },
  ];
  writeFileSync(join(dir, 'model.onnx'), gatherModel('tiny-context-encoder', table, 'last_hidden_state', extra, 'rows'));
  writeFileSync(join(dir, 'sentence_bert_config.json'), JSON.stringify({ max_seq_length: window }));
  return dir;
}

/**
 * A token classifier in Chonky's layout (labels O and separator): tokens in `marked` score
 * "separator", every other token "O", so its split points are known in advance. Runs take at
 * most `window` tokens. Written into `dir` (e.g. a Hugging Face cache snapshot) when given.
 */
export function writeTokenClassifier(pieces: string[], marked: string[], window: number, dir = tempDir()): string {
  mkdirSync(dir, { recursive: true });
  writeTokenizer(wordPieceJson(pieces), dir);
  const vocab = [...WORDPIECE_SPECIALS, ...pieces];
  const logits = vocab.map((p) => (marked.includes(p) ? [0.5, 2] : [1.5, -1]));
  writeFileSync(join(dir, 'model.onnx'), gatherModel('tiny-token-classifier', logits, 'logits'));
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ architectures: ['DistilBertForTokenClassification'], id2label: { 0: 'O', 1: 'separator' }, label2id: { O: 0, separator: 1 } }),
  );
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ model_max_length: window }));
  return dir;
}

/** Words the tiny classifier knows (lower-case, WordPiece); '.' is its split mark. */
export const CLASSIFIER_PIECES = [
  '.',
  ',',
  'the',
  'a',
  'meeting',
  'starts',
  'at',
  'nine',
  'bring',
  'quarterly',
  'figures',
  'after',
  'lunch',
  'we',
  'review',
  'roadmap',
  'for',
  'next',
  'year',
  'one',
  'two',
  'three',
  'word',
  'ok',
  '##s',
];

/**
 * A Hugging Face cache (a temporary HF_HUB_CACHE) holding the tiny classifier under `name`, as
 * huggingface_hub lays a snapshot out, so a model name resolves offline through the real lookup.
 */
export function tinyHubCache(names: string[], window = 16): string {
  const cache = tempDir('chunkd-hub-');
  for (const name of names) {
    const repo = join(cache, `models--${name.replace('/', '--')}`);
    writeTokenClassifier(CLASSIFIER_PIECES, ['.'], window, join(repo, 'snapshots', 'abc123'));
    mkdirSync(join(repo, 'refs'));
    writeFileSync(join(repo, 'refs', 'main'), 'abc123');
  }
  return cache;
}
