import Type from 'typebox';
import { defineChef, isUtf8Text } from '../../kernel/index.js';

export const TextConfig = Type.Object({});

/** Source code and other plain text: the extensions most often uploaded for the code chunker. */
const SOURCE = ['.py', '.pyi', '.js', '.mjs', '.cjs', '.jsx', '.ts', '.tsx', '.java', '.kt', '.kts', '.scala', '.go', '.rs', '.c', '.h', '.cc', '.cpp', '.cxx', '.hpp', '.hh', '.cs', '.rb', '.php', '.swift', '.m', '.lua', '.r', '.pl', '.sh', '.bash', '.zsh', '.ps1', '.sql', '.hs', '.ex', '.exs', '.erl', '.clj', '.dart', '.jl', '.vue', '.svelte', '.css', '.scss', '.less', '.json', '.jsonl', '.yaml', '.yml', '.toml', '.ini', '.cfg', '.conf', '.xml', '.rst', '.tex', '.log', '.srt', '.vtt'];

export default defineChef({
  name: 'text',
  summary: 'Any UTF-8 text, source code included, as it is.',
  extras: [],
  config: TextConfig,
  extensions: ['.txt', '.text', ...SOURCE],
  mediaTypes: ['text/plain', 'text/*', 'application/json', 'application/x-sh', 'application/xml', 'application/x-yaml', 'application/toml', 'application/sql'],
  sniff: isUtf8Text,
  // Decoding a large file holds a thread for tens of ms: in the extraction pool, not the event loop.
  // A text is given back as it is, here: copying it to a worker and back would cost more than that.
  offLoop: 'files',
  examples: [{ text: 'def hello():\n    return "world"\n' }],
  load: () => import('./impl.js'),
});
