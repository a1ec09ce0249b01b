import Type from 'typebox';
import { Chunk, ChunkInput } from '../kernel/chunk.js';
import { ERRORS, type ErrorCode } from '../kernel/errors.js';
import { Pipeline, PipelineStep } from './pipelines/schemas.js';

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
  code: Type.Union(Object.keys(ERRORS).map((c) => Type.Literal(c)), { description: 'Stable error code; see the README for each.' }),
});

/** OpenAPI error responses for the given codes, described from the error catalogue. */
export const errorResponses = (...codes: ErrorCode[]) =>
  Object.fromEntries(codes.map((c) => [ERRORS[c].status, { description: `${c}: ${ERRORS[c].meaning}`, schema: ErrorBody }]));

/** Schemas named once in the OpenAPI document and referenced wherever they appear. */
export const COMPONENTS = { Chunk, ChunkInput, Error: ErrorBody, Pipeline, PipelineStep };
