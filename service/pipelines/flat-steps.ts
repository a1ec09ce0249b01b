import type { Static } from '#typebox';
import { ChunkdError, isChunkdError, type Issue } from '../../kernel/errors.js';
import type { Registry } from '../../kernel/registry.js';
import type { FlatStep } from '../../wire/slug-pipelines.js';
import { SLUG_RULE } from '../../wire/slug.js';
import type { StoresService } from '../stores/service.js';
import { STEP_KINDS, validateSteps, type Step } from './steps.js';
import { storesSettingText } from '../settings.js';

export type Flat = Static<typeof FlatStep>;

/** Where a flat write step names its collection when its handshake's manifest names no other field. */
const COLLECTION_NAME = 'collection_name';

/**
 * The field a handshake's flat write step names the collection under: its manifest's
 * collectionKey, as Chonkie's client of that handshake sends it (`store_in("lancedb",
 * table_name=…)`), else collection_name.
 */
const collectionKeyOf = (registry: Registry, handshake: string): string => registry.find('handshake', handshake)?.manifest.collectionKey ?? COLLECTION_NAME;

/** Every field a flat write step may name its collection under, whatever its handshake: the manifests' first, then collection_name. */
const collectionKeys = (registry: Registry): string[] => [
  ...new Set([...registry.list().flatMap((p) => (p.kind === 'handshake' && p.manifest.collectionKey ? [p.manifest.collectionKey] : [])), COLLECTION_NAME]),
];

/**
 * The one place where the slug API's flat steps (`{type, component, ...params}`, as Chonkie's
 * clients send them) meet the stored shape (`{type, chef | chunker | refinery, config}`), both ways.
 * A flat write step names a handshake (`{"type": "write", "component": "lancedb", "table_name":
 * "docs"}`): it is stored as a write to the server's first connection of that handshake.
 */
export function toStored({ type, component, ...params }: Flat, registry: Registry, stores?: StoresService): Step {
  if (type === 'write') {
    const rest: Record<string, unknown> = { ...params };
    let collection: unknown;
    for (const key of collectionKeys(registry)) {
      collection ??= rest[key];
      delete rest[key];
    }
    return { type, store: stores?.byHandshake(component) ?? '', config: { ...(collection === undefined ? {} : { collection }), ...rest } };
  }
  return { type, [STEP_KINDS[type]]: component, config: params };
}

/** A stored step, flat. A plugin config field named `type` or `component` cannot be shown beside them, nor sent flat: it keeps its default. */
export function toFlat(step: Step, registry: Registry, stores?: StoresService): Flat {
  const { type: _type, component: _component, ...params } = (step.config ?? {}) as Record<string, unknown>;
  if (step.type === 'write') {
    const { collection, ...rest } = params;
    const handshake = stores?.handshakeOf(step.store ?? '') ?? step.store ?? '';
    return { type: 'write', component: handshake, [collectionKeyOf(registry, handshake)]: collection, ...rest };
  }
  return { type: step.type, component: step[STEP_KINDS[step.type]] ?? '', ...params };
}

/**
 * Flat steps (of the right shape) checked by the very code that checks /v1/pipelines' steps,
 * returned as stored (defaults filled in). A problem's loc is moved to where it is in the flat
 * step: `config.<field>` → `<field>`, `chunker`/`refinery`/`store` → `component`.
 */
export async function checkFlatSteps(
  registry: Registry,
  steps: readonly Flat[],
  loc: (string | number)[] = ['body', 'steps'],
  stores?: StoresService,
): Promise<Step[]> {
  const issues: Issue[] = [];
  for (const [i, step] of steps.entries()) {
    if (step.type === 'write' && !stores?.byHandshake(step.component))
      issues.push({ loc: [...loc, i, 'component'], msg: noConnection(step.component, stores), type: 'unknown_store' });
  }
  try {
    const stored = await validateSteps(
      registry,
      steps.map((s) => toStored(s, registry, stores)),
      loc,
      stores,
    );
    if (issues.length) throw new ChunkdError('VALIDATION', issues);
    return stored;
  } catch (e) {
    if (!isChunkdError(e) || !Array.isArray(e.detail)) throw e;
    // A write step with no connection of its handshake has one problem: that one (not the empty store name it was given).
    const mine = new Set(issues.map((x) => x.loc[loc.length]));
    const theirs = e.detail.filter((x) => !(mine.has(x.loc[loc.length]) && x.loc[loc.length + 1] === 'store'));
    throw new ChunkdError(
      'VALIDATION',
      [...issues, ...theirs.filter((x) => !issues.includes(x))].map((issue) => ({ ...issue, loc: flatLoc(issue.loc, loc.length) })),
    );
  }
}

function noConnection(handshake: string, stores?: StoresService): string {
  const names = stores?.names() ?? [];
  const listed = names.map((n) => `${n} (${stores!.handshakeOf(n)})`).join(', ');
  return `This server has no store connection of the handshake '${handshake}'${names.length ? `; its connections are ${listed}` : ' (it has no store connections)'}. Connections are server settings (${storesSettingText()}): the write step goes to the first one of its handshake.`;
}

function flatLoc(loc: (string | number)[], at: number): (string | number)[] {
  if (typeof loc[at] !== 'number') return loc;
  const rest = loc.slice(at + 1);
  if (rest[0] === 'config') rest.shift();
  else if (rest[0] === 'chunker' || rest[0] === 'refinery' || rest[0] === 'chef' || rest[0] === 'store') rest[0] = 'component';
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
    if (issue.type === 'extra_forbidden' && field === 'config')
      msg = "Parameters sit beside type and component in this API, not under 'config': move them up a level (/v1/pipelines takes them under config).";
    if (issue.type === 'extra_forbidden' && (field === 'chunker' || field === 'refinery' || field === 'chef'))
      msg = `This API names the plugin in 'component': remove '${field}'.`;
    const label = typeof step?.type === 'string' && typeof step.component === 'string' ? ` (${step.type} '${step.component}')` : '';
    return { ...issue, msg: `Step ${i}${label}: ${msg}` };
  });
}

/** An issue as one readable line: where (without the leading "body"), then what. */
export const issueLine = (issue: Issue): string => (issue.msg.startsWith('Step ') ? issue.msg : `${issue.loc.slice(1).join('.') || 'body'}: ${issue.msg}`);
