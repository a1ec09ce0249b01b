/**
 * The upload use case: a file's bytes become a stored file, read once by the chef its type needs
 * (or the one named), through the Runner. The quota is taken before the work (a full store refuses
 * at once) and given back if the upload fails before it is stored. The HTTP route and
 * `chunkd ingest` both call this.
 */
import { tooLarge } from '../../kernel/caps.js';
import { chefFor, unsupportedFile } from '../../kernel/chef/select.js';
import { ChunkdError } from '../../kernel/errors.js';
import type { ExtractedDocument, Runner } from '../../kernel/engine/index.js';
import type { Registry } from '../../kernel/registry.js';
import { settingOf, settingPairText, type Settings } from '../settings.js';
import { newFileName, QuotaError, sanitizeFilename, type FileRecord, type FileStore } from './store.js';

export interface UploadInput {
  bytes: Uint8Array;
  /** The client's file name (its extension picks the chef). */
  filename?: string;
  mime?: string;
  /** A chef named by the client instead of the one the file's type picks. */
  chef?: string;
}

export interface ReadDeps {
  registry: Registry;
  runner: Runner;
  settings: Pick<Settings, 'maxTextChars'>;
}

export interface UploadDeps extends ReadDeps {
  store: FileStore;
  settings: Pick<Settings, 'maxTextChars' | 'fileExpirySeconds'>;
}

/** A file as its chef read it: the chef's name (the file's format) and the document. */
export interface ReadFile {
  format: string;
  document: ExtractedDocument;
}

/**
 * Read a file's text and structure with the chef it names, else the chef for its extension, media
 * type or bytes (415 when none reads it), through the runner: the extraction pool, its time
 * budget, the size and structure caps hold wherever it runs. An upload and `chunkd ingest` read
 * every file so.
 */
export async function readFile({ registry, runner, settings }: ReadDeps, input: UploadInput, signal?: AbortSignal): Promise<ReadFile> {
  const facts = { filename: input.filename ?? '', ...(input.mime ? { mime: input.mime } : {}) };
  const chef = input.chef !== undefined ? registry.get('chef', input.chef) : chefFor(registry, facts, input.bytes);
  if (!chef) throw unsupportedFile(registry, facts);
  const document = await runner.process({ plugin: chef, config: {} }, { file: input.bytes, keep: true, ...facts }, signal);
  if (document.text.length > settings.maxTextChars) {
    throw tooLarge(
      `The file's text is ${document.text.length.toLocaleString('en')} characters`,
      settings.maxTextChars,
      settingOf('maxTextChars'),
      'Upload a smaller file',
    );
  }
  return { format: chef.name, document };
}

/** Extract and store one file: its record, or the error, with its quota reservation given back. */
export async function uploadFile(deps: UploadDeps, upload: UploadInput, signal?: AbortSignal): Promise<FileRecord> {
  const { store, settings } = deps;
  const filename = sanitizeFilename(upload.filename);
  const reservation = await store.reserve(newFileName(), upload.bytes.length).catch(asInsufficientStorage);
  try {
    // Extracted once, here, and stored beside the bytes: an unreadable file fails its upload rather than
    // every chunk request, a PDF is parsed once however often it is chunked, and the text offsets
    // refer to stays fixed for the file's life.
    const { format, document } = await readFile(deps, { ...upload, filename: filename ?? '' }, signal);
    const { text, structureJson, utf8From, codePoints } = document;
    const now = Date.now();
    const record: FileRecord = {
      name: reservation.name,
      filename,
      size: upload.bytes.length,
      format,
      text_chars: codePoints,
      created_at: new Date(now).toISOString(),
      expires_at: settings.fileExpirySeconds ? new Date(now + settings.fileExpirySeconds * 1000).toISOString() : null,
    };
    // A text that is the file's bytes decoded is stored as those bytes, not encoded again.
    const textUtf8 = utf8From === undefined ? undefined : upload.bytes.subarray(utf8From);
    // A structure without spans is not stored (structureJson is absent): it would cost quota (--max-files-bytes) and say nothing.
    await store.put(reservation, record, { bytes: upload.bytes, text, textUtf8, ...(structureJson ? { structureJson } : {}) }).catch(asInsufficientStorage);
    return record;
  } catch (e) {
    await store.release(reservation).catch(() => {}); // else it lapses on its own
    throw e;
  }
}

/** A full quota as the 507 a client can act on; anything else unchanged. */
function asInsufficientStorage(e: unknown): never {
  if (!(e instanceof QuotaError)) throw e;
  const what =
    e.limit === 'count'
      ? `${e.quota.maxFiles} files (${settingPairText('maxFiles')})`
      : `${e.quota.maxBytes} bytes (${settingPairText('maxFilesBytes')}; ${e.usage.bytes} in use)`;
  throw new ChunkdError(
    'INSUFFICIENT_STORAGE',
    `The uploaded files are at their quota of ${what}: delete some (DELETE /v1/files/{name}) or wait for them to expire, then upload again.`,
  );
}
