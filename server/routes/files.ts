import type { Context } from 'koa';
import Type from 'typebox';
import { tooLarge } from '../../kernel/caps.js';
import { ChunkdError, validationError } from '../../kernel/errors.js';
import { processFile } from '../../kernel/chef/run.js';
import { allSpans } from '../../kernel/chef/document.js';
import { codePointCount } from '../../kernel/chef/document.js';
import type { UploadAdmission } from '../../service/files/admission.js';
import { extractPoolSettings } from '../../service/files/extract-settings.js';
import { FILE_STORE, UPLOAD_ADMISSION } from '../../service/files/service.js';
import { InvalidFileCursorError, isFileName, newFileName, QuotaError, sanitizeFilename, type FileRecord, type FileStore } from '../../service/files/store.js';
import { uploadLimit } from '../../service/files/admission.js';
import { FILE_PART, fileTooLarge, readUpload, type Upload } from '../files/upload.js';
import type { RouteDef, RouteModule } from '../route.js';
import { queryReader } from '../query.js';
import { errorResponses } from '../schemas.js';
import { requestSignal } from '../middleware/deadline.js';
import { settingOf, settingPairText } from '../../service/settings.js';

const Timestamp = Type.String({ format: 'date-time' });
const FileName = Type.String({ description: 'The opaque id this server made for the file: send it back as `file.content`.', examples: ['file_0123456789abcdef0123456789abcdef'] });

/**
 * An uploaded file. `name`, `id` and `document` are one and the same opaque id, under each name
 * Chonkie's clients read it by: the Python client reads `name`; the TypeScript client takes the
 * first string among `document`, `filename`, `name`, `id`, so `document` must be there and be the
 * id (the client's own `filename` is never what gets sent back).
 */
export const FileInfo = Type.Object({
  name: FileName,
  id: FileName,
  document: FileName,
  filename: Type.Union([Type.String(), Type.Null()], { description: "The client's file name, without directories: informational only." }),
  size: Type.Integer({ minimum: 0, description: 'Bytes uploaded.' }),
  format: Type.String({ description: 'The chef that read the file (by the form field `chef`, else by extension, else by media type).' }),
  text_chars: Type.Integer({ minimum: 0, description: 'Length of the extracted text in code points: the text every offset of a chunk request by file refers to.' }),
  created_at: Timestamp,
  expires_at: Type.Union([Timestamp, Type.Null()], { description: 'When the file is deleted (then 404); null when files do not expire.' }),
});

export const FileText = Type.Object({
  name: FileName,
  text: Type.String({ description: 'The extracted text: chunk offsets (start_index, end_index) of a request by file refer to it.' }),
});

const UploadBody = Type.Object(
  {
    [FILE_PART]: Type.String({ format: 'binary', description: 'The file (.txt, .md, source code, and the other formats the chefs read), with a filename.' }),
    chef: Type.Optional(Type.String({ description: 'The chef that reads the file (GET /v1/plugins lists them); by default, the one for its extension or media type.', examples: ['markdown'] })),
  },
  { required: [FILE_PART] },
);

/** Most files on one page of GET /v1/files. */
export const FILES_PAGE_MAX = 100;

const FileListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: FILES_PAGE_MAX, default: FILES_PAGE_MAX, description: `Most files on this page (1–${FILES_PAGE_MAX}).` })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Where this page starts: the cursor of the previous answer's Link rel=\"next\" header. Without it, the newest files." })),
});
const readListQuery = queryReader<{ limit: number; cursor?: string }>(FileListQuery);

export const fileInfo = (r: FileRecord) => ({ name: r.name, id: r.name, document: r.name, filename: r.filename, size: r.size, format: r.format, text_chars: r.text_chars, created_at: r.created_at, expires_at: r.expires_at });

/** Uploads: POST /v1/files, then their metadata, their extracted text, and delete. */
export const fileRoutes: RouteModule = ({ settings, services, executor, registry }) => {
  const store = () => services[FILE_STORE] as FileStore;
  const route = (r: Omit<RouteDef, 'tag'>): RouteDef => ({ ...r, tag: 'files' });
  const admission = services[UPLOAD_ADMISSION] as UploadAdmission;

  async function found(ctx: Context): Promise<FileRecord> {
    const name = ctx.params.name!;
    const record = await store().get(name);
    if (record) return record;
    throw notFound(name);
  }

  /** Extract an upload that was read whole, and store it: the 201, or the error, with its quota reservation given back. */
  async function keep(ctx: Context, upload: Upload): Promise<void> {
    const filename = sanitizeFilename(upload.filename);
    // The quota is taken before extraction (a full store refuses at once, not after the work),
    // and given back if the upload fails before it is stored.
    const reservation = await store().reserve(newFileName(), upload.bytes.length).catch(asInsufficientStorage);
    try {
      // Extracted once, here, and stored beside the bytes: an unreadable file fails its upload rather than
      // every chunk request, a PDF is parsed once however often it is chunked, and the text offsets
      // refer to stays fixed for the file's life.
      const { text, structure, structureJson, format, utf8From, codePoints } = await processFile(registry, upload.bytes, { filename: filename ?? '', mime: upload.mime, chef: upload.fields.chef }, {
        executor,
        // Stored as JSON: made in the extraction worker when the chef runs there.
        structureJson: true,
        signal: requestSignal(ctx),
        limits: { maxTextChars: settings.maxTextChars, maxPdfDecodedBytes: settings.maxPdfDecodedBytes },
        limitNames: { maxTextChars: settingPairText('maxTextChars'), maxPdfDecodedBytes: settingPairText('maxPdfDecodedBytes') },
        pool: extractPoolSettings(settings),
      });
      if (text.length > settings.maxTextChars) {
        throw tooLarge(`The file's text is ${text.length.toLocaleString('en')} characters`, settings.maxTextChars, settingOf('maxTextChars'), 'Upload a smaller file');
      }
      const now = Date.now();
      const record: FileRecord = {
        name: reservation.name,
        filename,
        size: upload.bytes.length,
        format,
        text_chars: codePoints ?? codePointCount(text),
        created_at: new Date(now).toISOString(),
        expires_at: settings.fileExpirySeconds ? new Date(now + settings.fileExpirySeconds * 1000).toISOString() : null,
      };
      // A text that is the file's bytes decoded is stored as those bytes, not encoded again.
      const textUtf8 = utf8From === undefined ? undefined : upload.bytes.subarray(utf8From);
      // A structure without spans is not stored: it would cost quota (--max-files-bytes) and say nothing.
      const stored = structureJson ? { structureJson } : allSpans(structure).length ? { structure } : {};
      await store().put(reservation, record, { bytes: upload.bytes, text, textUtf8, ...stored }).catch(asInsufficientStorage);
      ctx.status = 201;
      ctx.set('Location', `/v1/files/${record.name}`);
      ctx.body = fileInfo(record);
    } catch (e) {
      await store().release(reservation).catch(() => {}); // else it lapses on its own
      throw e;
    }
  }

  return [
    route({
      method: 'post',
      path: '/v1/files',
      summary: 'Upload a file (multipart/form-data, one part named `file`); its text is extracted once, here.',
      description:
        'Answers 201 with the file\'s `name` (an opaque id; also as `id` and `document`): send `{"file": {"type": "document", "content": <name>}}` instead of `text` to a chunk route or a pipeline run. ' +
        'Offsets in those answers refer to the extracted text, which GET /v1/files/{name}/text returns. Files expire (`expires_at`).',
      streamedBody: { mediaType: 'multipart/form-data', schema: UploadBody },
      responses: {
        201: { description: 'Stored.', schema: FileInfo },
        ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'VALIDATION', 'MISSING_EXTRA', 'INSUFFICIENT_STORAGE', 'TIMEOUT', 'UNAVAILABLE'),
      },
      async handler(ctx) {
        const length = Number(ctx.get('content-length') || 0);
        if (length > uploadLimit(settings.maxFileBytes)) throw fileTooLarge(settings.maxFileBytes);
        // Admitted before a byte of the body is read, and held until the answer: the body stays in memory until then.
        const held = admission.admit(length);
        try {
          await keep(ctx, await readUpload(ctx.req, settings.maxFileBytes, requestSignal(ctx), held));
        } finally {
          held.release();
        }
      },
    }),
    route({
      method: 'get',
      path: '/v1/files',
      summary: 'The uploaded files, newest first, a page at a time (every replica lists every file with --database-url).',
      description:
        'The body is a bare list of files, as POST /v1/files answers each; when more follow, Link names the next page (rel="next"), whose cursor keeps its place while files are added and deleted. Expired files are not listed.',
      query: FileListQuery,
      responses: {
        200: {
          description: 'One page of files.',
          schema: Type.Array(FileInfo),
          headers: { Link: { description: 'When more files follow: `</v1/files?limit=N&cursor=C>; rel="next"`.', schema: Type.String() } },
        },
        ...errorResponses('UNAUTHORIZED', 'VALIDATION', 'UNAVAILABLE'),
      },
      async handler(ctx) {
        const query = readListQuery(ctx);
        const page = await store()
          .list({ limit: query.limit, after: query.cursor })
          .catch((e: unknown) => {
            if (!(e instanceof InvalidFileCursorError)) throw e;
            throw validationError(['query', 'cursor'], 'cursor is not one this server gave: start again without it, then follow the Link header (rel="next").', 'cursor_invalid');
          });
        if (page.next) ctx.set('Link', `</v1/files?limit=${query.limit}&cursor=${page.next}>; rel="next"`);
        ctx.body = page.files.map(fileInfo);
      },
    }),
    route({
      method: 'get',
      path: '/v1/files/:name',
      summary: "An uploaded file's metadata.",
      responses: { 200: { description: 'The file.', schema: FileInfo }, ...errorResponses('UNAUTHORIZED', 'NOT_FOUND') },
      async handler(ctx) {
        ctx.body = fileInfo(await found(ctx));
      },
    }),
    route({
      method: 'get',
      path: '/v1/files/:name/text',
      summary: "An uploaded file's extracted text: the text chunk offsets refer to.",
      description: 'A chunk request or pipeline run by `file` chunks exactly this text: `text.slice(start_index, end_index)` (in the request\'s offset_unit) is each chunk\'s text.',
      responses: { 200: { description: 'The extracted text.', schema: FileText }, ...errorResponses('UNAUTHORIZED', 'NOT_FOUND') },
      async handler(ctx) {
        const name = ctx.params.name!;
        const text = await store().text(name);
        if (text === undefined) throw notFound(name);
        ctx.body = { name, text };
      },
    }),
    route({
      method: 'delete',
      path: '/v1/files/:name',
      summary: 'Delete an uploaded file (its bytes and its text).',
      responses: { 204: { description: 'Deleted; no body.' }, ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND') },
      async handler(ctx) {
        const name = ctx.params.name!;
        if (!(await store().delete(name))) throw notFound(name);
        ctx.status = 204;
      },
    }),
  ];
};

/** A full quota as the 507 a client can act on; anything else unchanged. */
function asInsufficientStorage(e: unknown): never {
  if (!(e instanceof QuotaError)) throw e;
  const what = e.limit === 'count' ? `${e.quota.maxFiles} files (${settingPairText('maxFiles')})` : `${e.quota.maxBytes} bytes (${settingPairText('maxFilesBytes')}; ${e.usage.bytes} in use)`;
  throw new ChunkdError('INSUFFICIENT_STORAGE', `The uploaded files are at their quota of ${what}: delete some (DELETE /v1/files/{name}) or wait for them to expire, then upload again.`);
}

function notFound(name: string): ChunkdError {
  if (!isFileName(name)) {
    return new ChunkdError('NOT_FOUND', `${JSON.stringify(name.slice(0, 80))} is not a file name this server gives (they look like file_<32 hex digits>): use the name POST /v1/files answered.`);
  }
  return new ChunkdError('NOT_FOUND', `No file named '${name}': it was never uploaded here, was deleted, or expired. Upload it again with POST /v1/files.`);
}


