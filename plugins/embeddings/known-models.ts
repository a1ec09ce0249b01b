import { EMBEDDED_MODEL } from '../../kernel/index.js';

/**
 * The models Chonkie's cloud clients name by default. None can be downloaded where chunkd runs
 * offline, so a request naming one is answered with the exact steps that make it available:
 * which files, where they go, and the command that fetches them on a machine with internet.
 */
interface KnownModel {
  what: string;
  /** The files chunkd reads from the model's directory. */
  files: string;
  /** Shell command run on a machine with internet; it writes the files into the folder named after the model. */
  fetch: (name: string) => string;
}

const MODEL2VEC: KnownModel = {
  what: 'a Model2Vec static embedding model',
  files: 'config.json, tokenizer.json and model.safetensors',
  fetch: (name) => `pip install -U huggingface_hub && hf download ${name} config.json tokenizer.json model.safetensors --local-dir ${name}`,
};

/** Models without a ready ONNX export of the right task: optimum exports one (with its tokenizer and config). */
const exported = (what: string, task: string, files: string): KnownModel => ({
  what,
  files,
  fetch: (name) => `pip install -U "optimum[exporters]" && optimum-cli export onnx --task ${task} --model ${name} ${name}`,
});

const ENCODER = exported('a transformer embedding model, run as ONNX', 'feature-extraction', 'model.onnx, tokenizer.json and config.json');
const CHONKY = exported('a Chonky token-classification model, run as ONNX', 'token-classification', 'model.onnx, tokenizer.json and config.json with id2label');

export const KNOWN_MODELS: Record<string, KnownModel> = {
  'minishlab/potion-base-8M': MODEL2VEC,
  'minishlab/potion-base-32M': MODEL2VEC,
  'minishlab/potion-retrieval-32M': MODEL2VEC,
  'nomic-ai/modernbert-embed-base': ENCODER,
  'mirth/chonky_modernbert_large_1': CHONKY,
  'mirth/chonky_modernbert_base_1': CHONKY,
  'mirth/chonky_distilbert_base_uncased_1': CHONKY,
};

/**
 * How to make a known model available, as one paragraph: fetch, copy under a model root (or into
 * the Hugging Face cache), or map the name to an installed model. Undefined for other names.
 */
export function installGuide(name: string, hubCache: string): string | undefined {
  const known = KNOWN_MODELS[name];
  if (!known) return undefined;
  const alternative = known === MODEL2VEC ? `${EMBEDDED_MODEL} (built in)` : 'an installed model directory';
  return (
    `'${name}' (${known.what}) is not installed on this server, which cannot download models. To install it: on a machine with internet access run \`${known.fetch(name)}\`, ` +
    `then copy the folder ${name}/ (${known.files}) into a directory the server reads models from (--models-dir, CHUNKD_MODELS_DIR), keeping the path ${name}/, ` +
    `or into the Hugging Face cache (${hubCache}) as models--${name.replace('/', '--')}/snapshots/main/; no restart is needed. ` +
    `Or the operator maps the name to a model the server has: --model-map ${name}=<installed model> (CHUNKD_MODEL_MAP), e.g. ${alternative}.`
  );
}
