import { ChunkdError } from '../../../kernel/errors.js';

/** What an uploaded file is known by when its text is extracted. */
export interface FileFacts {
  /** The client's file name (only its extension is used). */
  filename: string;
  /** The part's Content-Type, when the client sent one. */
  mime?: string;
}

/** One extractable format: how it is recognised and how its text is taken out. */
export interface Extractor {
  format: string;
  extensions: readonly string[];
  mimeTypes: readonly string[];
  extract(bytes: Uint8Array): Promise<string>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ChunkdError('VALIDATION', 'The file is not valid UTF-8 text: save it as UTF-8 and upload it again.');
  }
}

const plain = (format: string, extensions: string[], mimeTypes: string[]): Extractor => ({
  format,
  extensions,
  mimeTypes,
  extract: async (bytes) => decodeUtf8(bytes),
});

/** Every format, in the order they are tried. */
export const EXTRACTORS: readonly Extractor[] = [
  plain('txt', ['.txt', '.text'], ['text/plain']),
  plain('md', ['.md', '.markdown'], ['text/markdown', 'text/x-markdown']),
];

/** The extractor for a file: by extension first, then by MIME type; undefined when none fits. */
export function extractorFor(facts: FileFacts): Extractor | undefined {
  const name = facts.filename.toLowerCase();
  const byExt = EXTRACTORS.find((e) => e.extensions.some((x) => name.endsWith(x)));
  if (byExt) return byExt;
  const mime = facts.mime?.split(';')[0]?.trim().toLowerCase();
  return mime ? EXTRACTORS.find((e) => e.mimeTypes.includes(mime)) : undefined;
}

/** The text of an uploaded file, and the format it was read as. */
export async function extractText(bytes: Uint8Array, facts: FileFacts): Promise<{ text: string; format: string }> {
  const extractor = extractorFor(facts);
  if (!extractor) {
    const known = EXTRACTORS.flatMap((e) => e.extensions).join(', ');
    throw new ChunkdError('UNSUPPORTED_MEDIA_TYPE', `Cannot read text from '${facts.filename}': upload one of ${known}.`);
  }
  return { text: await extractor.extract(bytes), format: extractor.format };
}
