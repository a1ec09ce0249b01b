import type { Context } from 'koa';
import Type from '#typebox';
import { ChunkdError, validationError } from '../../kernel/errors.js';
import type { UploadAdmission } from '../../service/files/admission.js';
import { InvalidFileCursorError, isFileName, type FileRecord, type FileStore } from '../../service/files/store.js';
import { uploadFile } from '../../service/files/upload.js';
import { runnerOf } from '../../service/limits.js';
import { uploadLimit } from '../../service/files/admission.js';
import { FILE_PART, fileTooLarge, readUpload, type Upload } from '../files/upload.js';
import type { RouteDef, RouteModule } from '../route.js';
import { queryReader } from '../query.js';
import { errorResponses } from '../../wire/responses.js';
import { requestSignal } from '../middleware/deadline.js';
import { settingOf, settingPairText } from '../../service/settings.js';

const Timestamp = Type.String({ format: 'date-time' });
const FileName = Type.String({
  description: 'The opaque id this server made for the file: send it back as `file.content`.',
  examples: ['file_0123456789abcdef0123456789abcdef'],
});

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
  text_chars: Type.Integer({
    minimum: 0,
    description: 'Length of the extracted text in code points: the text every offset of a chunk request by file refers to.',
  }),
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
    chef: Type.Optional(
      Type.String({
        description: 'The chef that reads the file (GET /v1/plugins lists them); by default, the one for its extension or media type.',
        examples: ['markdown'],
      }),
    ),
  },
  { required: [FILE_PART] },
);

/** Most files on one page of GET /v1/files. */
export const FILES_PAGE_MAX = 100;

const FileListQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: FILES_PAGE_MAX, default: FILES_PAGE_MAX, description: `Most files on this page (1–${FILES_PAGE_MAX}).` }),
  ),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Where this page starts: the cursor of the previous answer\'s Link rel="next" header. Without it, the newest files.',
    }),
  ),
});
const readListQuery = queryReader<{ limit: number; cursor?: string }>(FileListQuery);

export const fileInfo = (r: FileRecord) => ({
  name: r.name,
  id: r.name,
  document: r.name,
  filename: r.filename,
  size: r.size,
  format: r.format,
  text_chars: r.text_chars,
  created_at: r.created_at,
  expires_at: r.expires_at,
});

/** Uploads: POST /v1/files, then their metadata, their extracted text, and delete. */
export const fileRoutes: RouteModule = ({ settings, services, executor, registry }) => {
  const store = () => services.files;
  const route = (r: Omit<RouteDef, 'tag'>): RouteDef => ({ ...r, tag: 'files' });
  const admission = services.uploads;

  async function found(ctx: Context): Promise<FileRecord> {
    const name = ctx.params.name!;
    const record = await store().get(name);
    if (record) return record;
    throw notFound(name);
  }

  /** Extract an upload that was read whole, and store it (service/files/upload.ts): the 201. */
  async function keep(ctx: Context, upload: Upload): Promise<void> {
    const record = await uploadFile(
      { registry, runner: runnerOf(executor, settings), store: store(), settings },
      { bytes: upload.bytes, filename: upload.filename, mime: upload.mime, chef: upload.fields.chef },
      requestSignal(ctx),
    );
    ctx.status = 201;
    ctx.set('Location', `/v1/files/${record.name}`);
    ctx.body = fileInfo(record);
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
        ...errorResponses(
          'UNAUTHORIZED',
          'FORBIDDEN',
          'TOO_LARGE',
          'UNSUPPORTED_MEDIA_TYPE',
          'VALIDATION',
          'MISSING_EXTRA',
          'INSUFFICIENT_STORAGE',
          'TIMEOUT',
          'UNAVAILABLE',
        ),
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
            throw validationError(
              ['query', 'cursor'],
              'cursor is not one this server gave: start again without it, then follow the Link header (rel="next").',
              'cursor_invalid',
            );
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
      description:
        "A chunk request or pipeline run by `file` chunks exactly this text: `text.slice(start_index, end_index)` (in the request's offset_unit) is each chunk's text.",
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

function notFound(name: string): ChunkdError {
  if (!isFileName(name)) {
    return new ChunkdError(
      'NOT_FOUND',
      `${JSON.stringify(name.slice(0, 80))} is not a file name this server gives (they look like file_<32 hex digits>): use the name POST /v1/files answered.`,
    );
  }
  return new ChunkdError('NOT_FOUND', `No file named '${name}': it was never uploaded here, was deleted, or expired. Upload it again with POST /v1/files.`);
}
