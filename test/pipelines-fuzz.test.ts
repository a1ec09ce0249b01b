/**
 * Model-based property test with fast-check: random sequences of creates, updates and deletes, with
 * valid and invalid step lists and random names, never corrupt storage. Each answer is checked
 * against a model the test keeps; afterwards the stored list equals the model and the database
 * passes integrity_check. Seeds are printed on failure for replay.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { TestApp } from './helpers/app.js';
import { inspectDataDir } from './helpers/sqlite.js';
import { withTagPluginApp } from './helpers/tag-plugin.js';

let app: TestApp;
withTagPluginApp((a) => (app = a));

type Pipeline = { id: string; name: string; description: string | null; steps: unknown[]; created_at: string; updated_at: string };
/** The pipelines as the server acknowledged them, oldest first. */
type Model = { pipelines: Pipeline[] };
type Real = { app: TestApp };
type Step = { type: string; chunker?: string; refinery?: string; config?: Record<string, unknown> };
type Steps = { steps: readonly Step[]; valid: boolean };

const chunkStep: fc.Arbitrary<Step> = fc
  .record({ chunk_size: fc.integer({ min: 1, max: 4096 }), tokenizer: fc.constantFrom('character', 'word', 'byte', 'gpt2') }, { requiredKeys: [] })
  .map((config) => ({ type: 'chunk', chunker: 'token', config }));
const refineStep: fc.Arbitrary<Step> = fc
  .option(fc.string({ minLength: 1, maxLength: 5 }), { nil: undefined })
  .map((label) => ({ type: 'refine', refinery: 'tag', config: label === undefined ? {} : { label } }));
const validSteps = fc.tuple(chunkStep, fc.array(refineStep, { maxLength: 3 })).map(([c, rs]): [Step, ...Step[]] => [c, ...rs]);
/** An array nested `depth` levels deep. */
const nested = (depth: number): unknown => {
  let v: unknown = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
};
/** Each a valid list broken in one way the server must refuse. */
const invalidSteps: fc.Arbitrary<readonly Step[]> = fc.oneof<fc.Arbitrary<readonly Step[]>[]>(
  validSteps.map(([c, ...rs]) => [{ ...c, chunker: 'tokn' }, ...rs]),
  validSteps.map(([c, ...rs]) => [{ ...c, config: { ...c.config, chunk_size: 0 } }, ...rs]),
  validSteps.map(([c, ...rs]) => [{ ...c, config: { ...c.config, chunk_sise: 8 } }, ...rs]),
  validSteps.map(([c, ...rs]) => [{ ...c, config: { chunk_size: 4, chunk_overlap: 4 } }, ...rs]),
  validSteps.map((s) => [...s, s[0]]),
  fc.tuple(refineStep, validSteps).map(([r, s]) => [r, ...s]),
  validSteps.map((s) => [...s, { type: 'refine', refinery: 'tag', config: { label: '' } }]),
  // Past the body-shape and cost limits: nested deeper than 64 levels, more than 64 delimiters.
  fc.tuple(validSteps, fc.integer({ min: 65, max: 3000 })).map(([[c, ...rs], depth]) => [{ ...c, config: { ...c.config, deep: nested(depth) } }, ...rs]),
  fc
    .tuple(validSteps, fc.integer({ min: 65, max: 500 }))
    .map(([[, ...rs], n]) => [{ type: 'chunk', chunker: 'sentence', config: { delim: Array.from({ length: n }, (_, i) => `d${i}`) } }, ...rs]),
  fc.constantFrom<readonly Step[]>([], [{ type: 'split', chunker: 'token' }], [{ type: 'chunk' }], [{ type: 'refine', chunker: 'token' }]),
);
const steps: fc.Arbitrary<Steps> = fc.oneof(
  { arbitrary: validSteps.map((s) => ({ steps: s, valid: true })), weight: 2 },
  invalidSteps.map((s) => ({ steps: s, valid: false })),
);

/** Few names, so conflicts are common; and names that must be refused. */
const name = fc.oneof(
  { arbitrary: fc.constantFrom('a', 'b', 'c'), weight: 5 },
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 3 }),
  fc.constantFrom('', '  ', 'x'.repeat(201)),
);
const description = fc.option(fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 3 })), { nil: null });
/** A name, or the name of the model's n-th pipeline (a sure conflict, unless it is the pipeline's own). */
type NameChoice = string | { nameOf: number };
const nameChoice = (existing: number): fc.Arbitrary<NameChoice> =>
  fc.oneof({ arbitrary: name, weight: 3 }, { arbitrary: fc.nat().map((n) => ({ nameOf: n })), weight: existing });
const resolveName = (m: Model, n: NameChoice | undefined) =>
  typeof n === 'object' ? (m.pipelines.length ? m.pipelines[n.nameOf % m.pipelines.length]!.name : 'fresh') : n;
const nameOk = (n: string) => /\S/.test(n) && [...n].length <= 200 && n.isWellFormed();
const descriptionOk = (d: string | null | undefined) => d == null || d.isWellFormed();
const MISSING_ID = '00000000-0000-4000-8000-000000000000';
/** Statuses seen over all runs: the generators must reach every outcome, or the property proves little. */
const seen = new Set<string>();

/** The id a command acts on: one of the model's pipelines, or one that does not exist. */
const target = (m: Model, pick: number, missing: boolean) => (missing || m.pipelines.length === 0 ? MISSING_ID : m.pipelines[pick % m.pipelines.length]!.id);
const takenBy = (m: Model, n: string) => m.pipelines.find((p) => p.name === n);

class Create implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly nameChoice: NameChoice,
    readonly description: string | null | undefined,
    readonly steps: Steps,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const name = resolveName(m, this.nameChoice)!;
    const res = await r.app.post('/v1/pipelines', { name, description: this.description, steps: this.steps.steps });
    const valid = nameOk(name) && descriptionOk(this.description) && this.steps.valid;
    const expected = !valid ? 422 : takenBy(m, name) ? 409 : 201;
    assert.equal(res.status, expected, `${this} → ${JSON.stringify(res.body)}`);
    seen.add(`create ${res.status}`);
    if (res.status !== 201) return;
    assert.equal(res.body.name, name);
    assert.equal(res.body.description, this.description ?? null);
    m.pipelines.push(res.body);
  }
  toString = () => `create ${JSON.stringify([this.nameChoice, this.description, this.steps])}`;
}

class Update implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly missing: boolean,
    readonly patch: { name?: NameChoice; description?: string | null; steps?: Steps },
  ) {}
  check = (m: Readonly<Model>) => this.missing || m.pipelines.length > 0;
  async run(m: Model, r: Real) {
    const id = target(m, this.pick, this.missing);
    const { description, steps } = this.patch;
    const name = resolveName(m, this.patch.name);
    const res = await r.app.request('PUT', `/v1/pipelines/${id}`, { name, description, steps: steps?.steps });
    const valid = (name === undefined || nameOk(name)) && descriptionOk(description) && (steps === undefined || steps.valid);
    const empty = name === undefined && description === undefined && steps === undefined;
    const owner = name === undefined ? undefined : takenBy(m, name);
    const expected = id === MISSING_ID ? 404 : !valid || empty ? 422 : owner && owner.id !== id ? 409 : 200;
    assert.equal(res.status, expected, `${this} on ${id} → ${JSON.stringify(res.body)}`);
    seen.add(`update ${res.status}`);
    if (res.status !== 200) return;
    const i = m.pipelines.findIndex((p) => p.id === id);
    const before = m.pipelines[i]!;
    assert.equal(res.body.name, name ?? before.name);
    assert.equal(res.body.description, description === undefined ? before.description : description);
    assert.equal(res.body.created_at, before.created_at);
    assert.ok(res.body.updated_at > before.updated_at);
    if (steps === undefined) assert.deepEqual(res.body.steps, before.steps);
    m.pipelines[i] = res.body;
  }
  toString = () => `update ${JSON.stringify([this.pick, this.missing, this.patch])}`;
}

class Delete implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly missing: boolean,
  ) {}
  check = (m: Readonly<Model>) => this.missing || m.pipelines.length > 0;
  async run(m: Model, r: Real) {
    const id = target(m, this.pick, this.missing);
    const res = await r.app.request('DELETE', `/v1/pipelines/${id}`);
    assert.equal(res.status, id === MISSING_ID ? 404 : 204);
    seen.add(`delete ${res.status}`);
    m.pipelines = m.pipelines.filter((p) => p.id !== id);
  }
  toString = () => `delete ${JSON.stringify([this.pick, this.missing])}`;
}

/** Acting on an id that does not exist: now and then. */
const rarely = fc.integer({ min: 0, max: 6 }).map((x) => x === 0);
const update = fc
  .tuple(fc.nat(), rarely, fc.record({ name: nameChoice(6), description, steps }, { requiredKeys: [] }))
  .map(([pick, missing, patch]) => new Update(pick, missing, patch));
const create = fc.tuple(nameChoice(1), fc.option(description, { nil: undefined }), steps).map(([n, d, s]) => new Create(n, d, s));
const commands = fc.commands(
  [
    create,
    create, // creates and updates twice as likely as deletes: updates need a few pipelines to collide with
    update,
    update,
    fc.tuple(fc.nat(), rarely).map(([pick, missing]) => new Delete(pick, missing)),
  ],
  { maxCommands: 25, size: 'max' },
);

test('random pipelines (valid and invalid steps, random names, interleaved create/update/delete) never corrupt storage', async () => {
  await fc.assert(
    fc.asyncProperty(commands, async (cmds) => {
      for (const p of (await app.request('GET', '/v1/pipelines')).body) await app.request('DELETE', `/v1/pipelines/${p.id}`);
      const model: Model = { pipelines: [] };
      await fc.asyncModelRun(() => ({ model, real: { app } }), cmds);
      const listed = await app.request('GET', '/v1/pipelines');
      assert.deepEqual(listed.body, [...model.pipelines].reverse(), 'the stored list equals the model, newest first');
      const { integrity } = await inspectDataDir(app.settings.dataDir);
      assert.equal(integrity, 'ok');
    }),
    { numRuns: 60 },
  );
  const outcomes = ['create 201', 'create 409', 'create 422', 'update 200', 'update 404', 'update 409', 'update 422', 'delete 204', 'delete 404'];
  assert.deepEqual(
    outcomes.filter((o) => !seen.has(o)),
    [],
    'outcomes never generated',
  );
});
