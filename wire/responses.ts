import Type from '#typebox';
import { Chunk, ChunkInput } from '../kernel/chunk.js';
import { ERRORS, type ErrorCode } from '../kernel/errors.js';
import { Pipeline, PipelineStep } from './pipelines.js';
import { FlatStep, SlugPipeline } from './slug-pipelines.js';

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
  code: Type.Union(
    Object.keys(ERRORS).map((c) => Type.Literal(c)),
    { description: 'Stable error code; docs/errors.md lists each with its status.' },
  ),
  message: Type.String({
    description: 'The error in one readable line: detail itself, or for a list its first problem with its field and a count of the others.',
  }),
});

/** OpenAPI error responses for the given codes, described from the error catalogue. */
export function errorResponses(...codes: ErrorCode[]): Record<number, { description: string; schema: typeof ErrorBody }> {
  const out: Record<number, { description: string; schema: typeof ErrorBody }> = {};
  for (const c of new Set(codes)) {
    const { status, meaning } = ERRORS[c];
    const line = `${c}: ${meaning}`;
    // Two codes of one status (501 MISSING_EXTRA and NOT_CONFIGURED) share its entry, both described.
    out[status] = { description: out[status] ? `${out[status].description} ${line}` : line, schema: ErrorBody };
  }
  return out;
}

/** Errors any route that reads a body can answer: too large, an unknown Content-Encoding, an invalid body. */
export const BODY_ERRORS = ['TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'VALIDATION'] as const satisfies readonly ErrorCode[];

/** Schemas named once in the OpenAPI document and referenced wherever they appear. */
export const COMPONENTS = { Chunk, ChunkInput, Error: ErrorBody, Pipeline, PipelineStep, SlugPipeline, FlatStep };
