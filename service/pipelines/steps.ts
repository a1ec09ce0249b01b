import type { Static } from '#typebox';
import { ChunkdError, gatherIssues, isChunkdError, type Issue } from '../../kernel/errors.js';
import type { Kind } from '../../kernel/plugin.js';
import type { Plugin, Registry } from '../../kernel/registry.js';
import { parseConfig } from '../../kernel/request.js';
import type { StoresService } from '../stores/service.js';
import type { PipelineStep } from '../../wire/pipelines.js';
import { checkWriteStep, checkWriteTarget, type WriteStepShape } from './write-step.js';

export type Step = Static<typeof PipelineStep>;

/** What each step type that runs a plugin named in the step runs, and the step field naming it (a write step names a store connection instead). */
export const STEP_KINDS = { process: 'chef', chunk: 'chunker', refine: 'refinery' } as const satisfies Record<Exclude<Step['type'], 'write'>, Kind>;

/**
 * The chef a process step names to have each document read by the chef its type needs, as an
 * upload is (kernel/chef/select.ts: its extension, media type, then a sniff of its bytes). An
 * uploaded file or an ingested one was read so when it came in; a text is text. So the step runs
 * nothing more: the chunker gets the document's text and the structure its chef found.
 */
export const AUTO_CHEF = 'auto';

/** Whether a step is a process step whose chef is chosen by each document's type. */
export const isAutoChef = (step: Pick<Step, 'type' | 'chef'>): boolean => step.type === 'process' && step.chef === AUTO_CHEF;

/** A step's plugin kind and name, for the steps that name one (not a write step, not an auto process step). */
export const namedPlugin = (step: Step): { kind: Kind; name: string } | undefined =>
  step.type === 'write' || isAutoChef(step) ? undefined : { kind: STEP_KINDS[step.type], name: step[STEP_KINDS[step.type]] ?? '' };

/**
 * Check steps (already of the right shape) against the registry, so a pipeline that was stored
 * runs: known plugin names, configs valid for that plugin's own schema (and accepted by the plugin
 * itself, e.g. chunk_overlap < chunk_size), at most one process step, before the chunk step,
 * exactly one chunk step, before every refine step.
 * Returns the steps as stored: the plugin's name and its config with the defaults filled in.
 * Every problem of every step is reported at once, each with its loc.
 */
export async function validateSteps(
  registry: Registry,
  steps: readonly Step[],
  loc: (string | number)[] = ['body', 'steps'],
  stores?: StoresService,
): Promise<Step[]> {
  const issues: Issue[] = [];
  const out: Step[] = [];
  let chunkAt = -1;
  let processAt = -1;
  for (const [i, step] of steps.entries()) {
    const at = (...rest: (string | number)[]) => [...loc, i, ...rest];
    if (step.type === 'write') {
      for (const other of Object.values(STEP_KINDS)) {
        if (step[other] !== undefined)
          issues.push({ loc: at(other), msg: `A write step names a store connection, not a ${other}: remove '${other}'.`, type: 'extra_forbidden' });
      }
      if (i !== steps.length - 1)
        issues.push({ loc: at('type'), msg: 'A write step is the last step: move it to the end (a pipeline writes to one store).', type: 'value_error' });
      if (chunkAt < 0) issues.push({ loc: at('type'), msg: 'A write step needs a chunk step before it: add one.', type: 'value_error' });
      const checked = checkWriteStep(step as WriteStepShape & Record<string, unknown>, at, stores, issues);
      if (checked) out.push(checked as Step);
      continue;
    }
    if (step.store !== undefined)
      issues.push({ loc: at('store'), msg: `Only a write step names a store: remove 'store' or make this a write step.`, type: 'extra_forbidden' });
    const kind = STEP_KINDS[step.type];
    for (const other of Object.values(STEP_KINDS)) {
      if (other !== kind && step[other] !== undefined)
        issues.push({
          loc: at(other),
          msg: `A ${step.type} step names a ${kind}, not a ${other}: remove '${other}' or change the type.`,
          type: 'extra_forbidden',
        });
    }
    if (step.type === 'process' && processAt >= 0) {
      issues.push({ loc: at('type'), msg: `A pipeline has at most one process step, and step ${processAt} is one: remove this one.`, type: 'value_error' });
    } else if (step.type === 'process' && chunkAt >= 0) {
      issues.push({ loc: at('type'), msg: `A process step comes before the chunk step (step ${chunkAt}): move it first.`, type: 'value_error' });
    }
    if (step.type === 'process' && processAt < 0) processAt = i;
    if (step.type === 'chunk' && chunkAt >= 0) {
      issues.push({
        loc: at('type'),
        msg: `A pipeline has one chunk step, and step ${chunkAt} is one: make this a refine step or remove it.`,
        type: 'value_error',
      });
    }
    if (step.type === 'refine' && chunkAt < 0) {
      issues.push({ loc: at('type'), msg: 'A refine step needs a chunk step before it: put the chunk step first.', type: 'value_error' });
    }
    if (step.type === 'chunk' && chunkAt < 0) chunkAt = i;
    if (isAutoChef(step)) {
      if (step.config !== undefined && Object.keys(step.config).length)
        issues.push({
          loc: at('config'),
          msg: `"chef": "${AUTO_CHEF}" picks each document's chef by its type and takes no config: remove 'config', or name one chef.`,
          type: 'extra_forbidden',
        });
      else out.push({ type: 'process', chef: AUTO_CHEF, config: {} });
      continue;
    }
    const plugin = findPlugin(registry, kind, step[kind], at(kind), issues);
    if (!plugin) continue;
    try {
      const config = parseConfig(plugin, step.config, at('config'));
      await checkAccepted(plugin, config, at('config'));
      // Stored in the schema's field order, whatever order the client sent.
      out.push({ type: step.type, [kind]: plugin.name, config: Object.fromEntries(plugin.configKeys.map((k) => [k, config[k]])) });
    } catch (e) {
      gatherIssues(issues, e);
    }
  }
  if (processAt >= 0 && chunkAt < 0)
    issues.push({ loc: [...loc, processAt, 'type'], msg: 'A process step needs a chunk step after it: add one.', type: 'value_error' });
  if (issues.length) throw new ChunkdError('VALIDATION', issues);
  checkWriteTarget(out, stores);
  return out;
}

function findPlugin(registry: Registry, kind: Kind, name: string | undefined, loc: (string | number)[], issues: Issue[]): Plugin | undefined {
  if (name === undefined) {
    issues.push({ loc, msg: `Field required: add '${kind}' (GET /v1/plugins lists them).`, type: 'missing' });
    return undefined;
  }
  const plugin = registry.find(kind, name);
  if (!plugin) issues.push({ loc, msg: registry.unknownMessage(kind, name), type: 'unknown_plugin' }); // built only for a miss
  return plugin;
}

/**
 * Rules a schema cannot state (chunk_overlap < chunk_size, a known tokenizer) are checked by
 * building the plugin, as its endpoint would. A plugin whose extras are missing cannot be built
 * here; its step is stored, and running it answers 501 with the install command until they are.
 */
async function checkAccepted(plugin: Plugin, config: Record<string, unknown>, loc: (string | number)[]): Promise<void> {
  if (plugin.missing.length) return;
  try {
    await plugin.instance(config);
  } catch (e) {
    if (isChunkdError(e) && e.code === 'BAD_REQUEST') throw new ChunkdError('VALIDATION', [{ loc, msg: String(e.detail), type: 'value_error' }]);
    if (isChunkdError(e) && e.code === 'MISSING_EXTRA') return;
    throw e;
  }
}
