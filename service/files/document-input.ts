import Type, { type TSchema } from '#typebox';
import { ChunkdError, validationError } from '../../kernel/errors.js';
import { movable } from '../../kernel/engine/index.js';
import type { StoredDocument } from '../pipelines/execute.js';
import type { FileStore } from './store.js';

/**
 * `file: {"type": "document", "content": <name>}` in place of `text`, as Chonkie's clients send it
 * after an upload: on every route that declares `documentInput`, the named file's extracted text
 * becomes the body's `text` before the route sees the body. Routes, validation and workers stay
 * unaware of files; offsets refer to that text (GET /v1/files/{name}/text). The middleware that
 * does it on each such route is server/middleware/document-input.ts.
 */
export const FileRef = Type.Object(
  {
    type: Type.Literal('document', { description: 'Always "document".' }),
    content: Type.String({ description: 'The `name` POST /v1/files answered.', examples: ['file_0123456789abcdef0123456789abcdef'] }),
  },
  {
    description:
      'An uploaded file, sent instead of `text`: its extracted text is chunked, and offsets refer to that text (GET /v1/files/{name}/text). Unknown or expired → 404; with `text` too → 422.',
  },
);

/** The documented body of a documentInput route: its own schema, with `file` as the alternative to `text`. */
export function withFileAlternative(body: TSchema): TSchema {
  const b = body as TSchema & { properties?: Record<string, TSchema>; required?: string[] };
  return {
    ...b,
    properties: { ...b.properties, file: FileRef },
    required: (b.required ?? []).filter((k) => k !== 'text'),
    oneOf: [{ required: ['text'] }, { required: ['file'] }],
  } as TSchema;
}

const SHAPE = '{"file": {"type": "document", "content": "<name from POST /v1/files>"}}';

/**
 * Replace body.file by body.text (the file's extracted text); a body without `file` is left as it
 * is. Answers the stored document's chef and structure, or undefined.
 */
export async function resolveDocument(body: unknown, store: FileStore): Promise<StoredDocument | undefined> {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !('file' in body)) return undefined;
  const b = body as Record<string, unknown>;
  if (b.text !== undefined) throw validationError(['body'], 'The body has both text and file: send one of them.', 'text_and_file');
  const file = b.file;
  if (file === null || typeof file !== 'object' || Array.isArray(file))
    throw validationError(['body', 'file'], `file must be an object, e.g. ${SHAPE}.`, 'model_type');
  const { type, content } = file as Record<string, unknown>;
  if (type !== 'document')
    throw validationError(['body', 'file', 'type'], `file.type must be "document" (got ${shown(type)}), e.g. ${SHAPE}.`, 'literal_error');
  if (typeof content !== 'string')
    throw validationError(['body', 'file', 'content'], `file.content must be the name POST /v1/files answered (a string), e.g. ${SHAPE}.`, 'string_type');
  const [record, text] = [await store.get(content), await store.text(content)];
  if (text === undefined || record === undefined) {
    throw new ChunkdError(
      'NOT_FOUND',
      `No file named ${shown(content)}: upload it first with POST /v1/files and send the name it answers (files expire; GET /v1/files/{name} shows when).`,
    );
  }
  b.text = text;
  delete b.file;
  // The chef's structure, stored beside the text by the upload (null for a file stored without one):
  // its JSON bytes, parsed by the runner where the document runs (a worker, for a large one), never here.
  const json = await store.structureJson(content);
  return { id: content, format: record.format, ...(record.filename ? { name: record.filename } : {}), ...(json ? { structureJson: movable(json) } : {}) };
}

const shown = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 77)}…` : s;
};
