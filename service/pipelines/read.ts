import { ChunkdError, gatherIssues, isChunkdError, type Issue } from '../../kernel/errors.js';
import { SHAPE_ISSUES } from '../../kernel/json-shape.js';
import { reservedNameIssue } from '../../wire/slug.js';
import type { Step } from './steps.js';

/** How one pipeline API writes: the key holding the pipeline's name, and how its steps become stored steps. */
export interface PipelineWriter<S> {
  /** 'name' on /v1/pipelines, 'slug' on /v1/pipeline: the stored name either way. */
  nameKey: 'name' | 'slug';
  /** The steps (of the right shape) checked against the registry and returned as stored; a 422 listing every problem otherwise. */
  checkSteps(steps: S): Promise<Step[]>;
}

/**
 * A create or update body: its shape, then its steps against the registry. Both sets of problems
 * come in one 422: the steps are checked whenever their own shape is right, even if the name is not.
 * Both pipeline APIs write through here, so a pipeline passes the same checks whichever made it.
 */
export async function readPipeline<T extends { steps?: S }, S>(
  raw: unknown,
  read: (body: unknown) => T,
  writer: PipelineWriter<S>,
): Promise<Omit<T, 'steps'> & { steps?: Step[] }> {
  let body: T;
  let issues: Issue[] = [];
  try {
    body = read(raw);
  } catch (e) {
    // A body refused for its shape (nesting, infinite numbers) was not checked against the schema:
    // nothing in it can be trusted to have a shape, the steps least of all.
    if (!isChunkdError(e) || !Array.isArray(e.detail) || e.detail.some((i) => SHAPE_ISSUES.has(i.type))) throw e;
    issues = e.detail;
    body = raw as T;
  }
  const shaped = !issues.some((i) => i.loc.length === 1);
  for (const key of [writer.nameKey, 'description'] as const) {
    // SQLite stores text as UTF-8, which cannot hold a lone surrogate: it would come back altered.
    const value = shaped ? (body as Record<string, unknown>)[key] : undefined;
    if (typeof value === 'string' && !value.isWellFormed()) {
      issues.push({
        loc: ['body', key],
        msg: `${key} holds a lone UTF-16 surrogate, which cannot be stored as is: send well-formed Unicode.`,
        type: 'string_unicode',
      });
    } else if (typeof value === 'string' && value.includes('\u0000')) {
      // PostgreSQL text cannot hold U+0000: refused on both back-ends, so they answer alike.
      issues.push({ loc: ['body', key], msg: `${key} holds a NUL character (U+0000), which cannot be stored: remove it.`, type: 'string_unicode' });
    }
  }
  const reserved = shaped ? reservedNameIssue((body as Record<string, unknown>)[writer.nameKey], ['body', writer.nameKey]) : undefined;
  if (reserved) issues.push(reserved);
  const stepsShaped = shaped && !issues.some((i) => i.loc[1] === 'steps');
  let steps: Step[] | undefined;
  if (body.steps !== undefined && stepsShaped) {
    try {
      steps = await writer.checkSteps(body.steps);
    } catch (e) {
      gatherIssues(issues, e);
    }
  }
  if (issues.length) throw new ChunkdError('VALIDATION', issues);
  return { ...body, steps };
}
