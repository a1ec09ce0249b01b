/**
 * The upload use case: a file's bytes become a stored file, read once by the chef its type needs
 * (or the one named), through the Runner. The quota is taken before the work (a full store refuses
 * at once) and given back if the upload fails before it is stored. The HTTP route and
 * `chunkd ingest` both call this.
 */
import { tooLarge } from '../../kernel/caps.js';
import { chefFor, unsupportedFile } from '../../kernel/chef/select.js';
import { ChunkdError } from '../../kernel/errors.js';
import type { Runner } from '../../kernel/engine/index.js';
import type { Registry } from '../../kernel/registry.js';
import type { Settings } from '../settings.js';
import { newFileName, QuotaError, sanitizeFilename, type FileRecord, type FileStore } from './store.js';

export interface UploadInput {
  bytes: Uint8Array;
  /** The client's file name (its extension picks the chef). */
  filename?: string;
  mime?: string;
  /** A chef named by the client instead of the one the file's type picks. */
  chef?: string;
}

export interface UploadDeps {
  registry: Registry;
  runner: Runner;
  store: FileStore;
  settings: Pick<Settings, 'maxTextChars' | 'fileExpirySeconds'>;
}

/** Extract and store one file: its record, or the error, with its quota reservation given back. */
export async function uploadFile({ registry, runner, store, settings }: UploadDeps, upload: UploadInput, signal?: AbortSignal): Promise<FileRecord> {
  const filename = sanitizeFilename(upload.filename);
  const facts = { filename: filename ?? '', ...(upload.mime ? { mime: upload.mime } : {}) };
  const reservation = await store.reserve(newFileName(), upload.bytes.length).catch(asInsufficientStorage);
  try {
    const chef = upload.chef !== undefined ? registry.get('chef', upload.chef) : chefFor(registry, facts, upload.bytes);
    if (!chef) throw unsupportedFile(registry, facts);
    // Extracted once, here, and stored beside the bytes: an unreadable file fails its upload rather than
    // every chunk request, a PDF is parsed once however often it is chunked, and the text offsets
    // refer to stays fixed for the file's life.
    const { text, structureJson, utf8From, codePoints } = await runner.process({ plugin: chef, config: {} }, { file: upload.bytes, keep: true, ...facts }, signal);
    if (text.length > settings.maxTextChars) {
      throw tooLarge(`The file's text is ${text.length.toLocaleString('en')} characters`, settings.maxTextChars, { flag: 'max-text-chars', env: 'CHUNKD_MAX_TEXT_CHARS' }, 'Upload a smaller file');
    }
    const now = Date.now();
    const record: FileRecord = {
      name: reservation.name,
      filename,
      size: upload.bytes.length,
      format: chef.name,
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
  const what = e.limit === 'count' ? `${e.quota.maxFiles} files (--max-files, CHUNKD_MAX_FILES)` : `${e.quota.maxBytes} bytes (--max-files-bytes, CHUNKD_MAX_FILES_BYTES; ${e.usage.bytes} in use)`;
  throw new ChunkdError('INSUFFICIENT_STORAGE', `The uploaded files are at their quota of ${what}: delete some (DELETE /v1/files/{name}) or wait for them to expire, then upload again.`);
}
