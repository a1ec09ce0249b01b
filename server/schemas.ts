import Type from 'typebox';
import { Chunk } from '../kernel/chunk.js';
import { ERROR_STATUS } from '../kernel/errors.js';

/** Response shapes shared by several routes. */
export const ChunkList = Type.Array(Chunk);
export const ChunkResult = Type.Union([ChunkList, Type.Array(ChunkList), Type.Array(Type.String()), Type.Array(Type.Array(Type.String()))], {
  description: 'Chunks for a text; one list per text for a list input; texts only with return_type "texts".',
});

export const ErrorBody = Type.Object({
  detail: Type.Union([
    Type.String(),
    Type.Array(Type.Object({ loc: Type.Array(Type.Union([Type.String(), Type.Integer()])), msg: Type.String(), type: Type.String() })),
  ]),
  code: Type.Union(Object.keys(ERROR_STATUS).map((c) => Type.Literal(c))),
});

export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, { description: ERROR_TEXT[s] ?? 'Error', schema: ErrorBody }]));

const ERROR_TEXT: Record<number, string> = {
  400: 'A valid body the plugin cannot honour (e.g. chunk_overlap ≥ chunk_size, unknown tokenizer).',
  401: 'Missing or wrong API key.',
  404: 'Unknown pipeline or plugin.',
  409: 'A pipeline with this name exists.',
  413: 'Request too large.',
  422: 'Invalid body: detail lists each field with its location.',
  501: 'An optional package the plugin needs is not installed: detail has the npm install command.',
};
