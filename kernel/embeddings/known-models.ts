import { settingPair, settingName } from '../caps.js';
import { EMBEDDED_MODEL } from '../fields.js';
import { settingOf } from '../host.js';

/** `--model-map <name>=<installed model> (CHUNKD_MODEL_MAP)`: the setting with the entry that maps `name`. */
function mapped(name: string): string {
  const { flag, env } = settingOf('model-map');
  return settingName({ flag: `${flag} ${name}=<installed model>`, env });
}

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

interface ClientModel extends KnownModel {
  /** The client classes (and the field) that send this name by default. */
  clients: string;
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

/** A sentence-transformers model named without its organisation (as sentence-transformers allows): its repository ships an ONNX export. */
const SENTENCE_TRANSFORMERS: KnownModel = {
  what: 'a sentence-transformers embedding model, run as ONNX',
  files: 'onnx/model.onnx, tokenizer.json and config.json',
  fetch: (name) => `pip install -U huggingface_hub && hf download sentence-transformers/${name} config.json tokenizer.json onnx/model.onnx --local-dir ${name}`,
};

const known = (model: KnownModel, clients: string): ClientModel => ({ ...model, clients });

/** Every model name Chonkie's cloud clients send by default (and the neural chunker's own default). */
export const KNOWN_MODELS: Record<string, ClientModel> = {
  'minishlab/potion-base-8M': known(MODEL2VEC, 'TS SemanticChunker (`embedding_model`)'),
  'minishlab/potion-base-32M': known(MODEL2VEC, 'Py SemanticChunker (`embedding_model`)'),
  'minishlab/potion-retrieval-32M': known(MODEL2VEC, 'Py EmbeddingsRefinery (`embedding_model`)'),
  'nomic-ai/modernbert-embed-base': known(ENCODER, 'Py LateChunker (`embedding_model`)'),
  'all-MiniLM-L6-v2': known(SENTENCE_TRANSFORMERS, 'TS LateChunker (`embedding_model`)'),
  'mirth/chonky_modernbert_large_1': known(CHONKY, 'Py and TS NeuralChunker (`model`; TS sends it as `embedding_model`)'),
  'mirth/chonky_modernbert_base_1': known(CHONKY, 'Py and TS NeuralChunker, named in their docs (`model`)'),
  'mirth/chonky_distilbert_base_uncased_1': known(CHONKY, "chunkd's neural chunker and Chonkie's library (`model`)"),
};

/**
 * How to make a known model available, as one paragraph: fetch, copy under a model root (or into
 * the Hugging Face cache), or map the name to an installed model. Undefined for other names.
 */
export function installGuide(name: string, hubCache: string): string | undefined {
  const known = KNOWN_MODELS[name];
  if (!known) return undefined;
  const alternative = known.what === MODEL2VEC.what ? `${EMBEDDED_MODEL} (built in)` : 'an installed model directory';
  // A name without an organisation is looked up under the model roots only, not as a Hugging Face cache entry.
  const cache = name.includes('/') ? `, or into the Hugging Face cache (${hubCache}) as models--${name.replace('/', '--')}/snapshots/main/` : '';
  return (
    `'${name}' (${known.what}) is not installed on this server, which cannot download models. To install it: on a machine with internet access run \`${known.fetch(name)}\`, ` +
    `then copy the folder ${name}/ (${known.files}) into a directory the server reads models from (${settingPair(settingOf('models-dir'))}), keeping the path ${name}/${cache}; no restart is needed. ` +
    `Or the operator maps the name to a model the server has: ${mapped(name)}, e.g. ${alternative}.`
  );
}

/** The README's table of the client default models (`npm run docs`): each name, who sends it, and the command that fetches it. */
export function clientModelsTable(): string {
  const rows = Object.entries(KNOWN_MODELS).map(([name, m]) => `| \`${name}\` | ${m.clients} | ${m.what} | \`${m.fetch(name)}\` |`);
  return [
    '| model | sent by default by | kind | fetch on a machine with internet, then copy the folder under `--models-dir` |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}
