import type { Static } from 'typebox';
import { ChunkdError, isChunkdError, type Issue } from '../../kernel/errors.js';
import type { Registry } from '../../kernel/registry.js';
import type { FlatStep } from './slug-schemas.js';
import { SLUG_RULE } from './slug.js';
import { STEP_KINDS, validateSteps, type Step } from './steps.js';

export type Flat = Static<typeof FlatStep>;

/**
 * The one place where the slug API's flat steps (`{type, component, ...params}`, as Chonkie's
 * clients send them) meet the stored shape (`{type, chef | chunker | refinery, config}`), both ways.
 */
export function toStored({ type, component, ...params }: Flat): Step {
  return { type, [STEP_KINDS[type]]: component, config: params };
}

/** A stored step, flat. A plugin config field named `type` or `component` cannot be shown beside them, nor sent flat: it keeps its default. */
export function toFlat(step: Step): Flat {
  const { type: _type, component: _component, ...params } = (step.config ?? {}) as Record<string, unknown>;
  return { type: step.type, component: step[STEP_KINDS[step.type]] ?? '', ...params };
}

/**
 * Flat steps (of the right shape) checked by the very code that checks /v1/pipelines' steps,
 * returned as stored (defaults filled in). A problem's loc is moved to where it is in the flat
 * step: `config.<field>` → `<field>`, `chunker`/`refinery` → `component`.
 */
export async function checkFlatSteps(registry: Registry, steps: readonly Flat[], loc: (string | number)[] = ['body', 'steps']): Promise<Step[]> {
  try {
    return await validateSteps(registry, steps.map(toStored), loc);
  } catch (e) {
    if (!isChunkdError(e) || !Array.isArray(e.detail)) throw e;
    throw new ChunkdError('VALIDATION', e.detail.map((issue) => ({ ...issue, loc: flatLoc(issue.loc, loc.length) })));
  }
}

function flatLoc(loc: (string | number)[], at: number): (string | number)[] {
  if (typeof loc[at] !== 'number') return loc;
  const rest = loc.slice(at + 1);
  if (rest[0] === 'config') rest.shift();
  else if (rest[0] === 'chunker' || rest[0] === 'refinery' || rest[0] === 'chef') rest[0] = 'component';
  return [...loc.slice(0, at + 1), ...rest];
}

/**
 * Problems as the slug API states them: each message names its step (`Step 1 (refine 'overlap'):
 * …`), and the mistakes a client of the other shapes makes get a hint. `body` is the request body
 * the locs point into; `at` is where a step's index sits in a loc.
 */
export function explainIssues(issues: readonly Issue[], body: unknown, at = 2): Issue[] {
  const steps = (body as { steps?: unknown } | null)?.steps;
  return issues.map((issue) => {
    const { loc } = issue;
    let msg = issue.msg;
    if (loc.length === 2 && loc[1] === 'slug' && issue.type === 'pattern') msg = `slug may hold only ${SLUG_RULE}, as Chonkie's clients require: ${msg}`;
    const i = loc[at];
    if (loc[at - 1] !== 'steps' || typeof i !== 'number' || !Array.isArray(steps)) return { ...issue, msg };
    const step = steps[i] as Record<string, unknown> | undefined;
    const field = loc[at + 1];
    if (issue.type === 'extra_forbidden' && field === 'config') msg = "Parameters sit beside type and component in this API, not under 'config': move them up a level (/v1/pipelines takes them under config).";
    if (issue.type === 'extra_forbidden' && (field === 'chunker' || field === 'refinery' || field === 'chef')) msg = `This API names the plugin in 'component': remove '${field}'.`;
    const label = typeof step?.type === 'string' && typeof step.component === 'string' ? ` (${step.type} '${step.component}')` : '';
    return { ...issue, msg: `Step ${i}${label}: ${msg}` };
  });
}

/** An issue as one readable line: where (without the leading "body"), then what. */
export const issueLine = (issue: Issue): string => (issue.msg.startsWith('Step ') ? issue.msg : `${issue.loc.slice(1).join('.') || 'body'}: ${issue.msg}`);
