/**
 * The README's request examples run as pasted: their shell lines, in README order, in one bash
 * session (so `$id` from the create reaches the others), with curl and jq against a real server,
 * and what they print is what the README shows under them (ids and times aside, which the README
 * replaces by stand-ins). test/parity.test.ts checks the same answers against an in-process run;
 * this checks the commands themselves.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hubCacheDir } from '../kernel/model-files.js';
import { ROOT } from '../kernel/paths.js';
import { DOC_EXAMPLES } from '../scripts/docs-examples.js';
import { startApp, type TestApp } from './helpers/app.js';

const missingTools = ['curl', 'jq', 'bash'].filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);

interface Block {
  name: string;
  sh: string;
  answers: { lang: string; text: string }[];
}

function readmeBlocks(): Block[] {
  const doc = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return DOC_EXAMPLES.filter((e) => !e.file).map(({ name }) => {
    const m = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)<!-- ${name}:end -->`).exec(doc);
    assert.ok(m, `README has no ${name} block`);
    const fences = [...m[1]!.matchAll(/```(\w*)\n([\s\S]*?)\n```/g)].map((f) => ({ lang: f[1]!, text: f[2]! }));
    assert.equal(fences[0]?.lang, 'sh', `${name} opens with a sh block`);
    return { name, sh: fences[0]!.text, answers: fences.slice(1) };
  });
}

function run(script: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const stable = (s: string) =>
  s
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>')
    .replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\b/g, '<time>');

describe('README examples, pasted into bash', { skip: missingTools.length ? `needs ${missingTools.join(', ')} on PATH` : false }, () => {
  let app: TestApp;
  const out = new Map<string, { stdout: string; stderr: string }>();
  let blocks: Block[];

  before(async () => {
    app = await startApp();
    blocks = readmeBlocks();
    const host = app.url.replace('http://', '');
    const script = ['set -eu', ...blocks.flatMap((b) => [`printf '\\n@@%s\\n' ${b.name}; printf '\\n@@%s\\n' ${b.name} >&2`, b.sh.replaceAll('localhost:8000', host)])].join('\n');
    // Not spawnSync: the server answers from this process's event loop.
    const res = await run(script);
    assert.equal(res.status, 0, res.stderr);
    const split = (text: string) => text.split(/^@@/m).slice(1).map((part) => [part.slice(0, part.indexOf('\n')), part.slice(part.indexOf('\n') + 1)] as const);
    const stderr = new Map(split(res.stderr));
    for (const [name, stdout] of split(res.stdout)) out.set(name, { stdout, stderr: stderr.get(name) ?? '' });
  });
  after(() => app?.close());

  test('every example ran', () => {
    assert.deepEqual([...out.keys()], blocks.map((b) => b.name));
    assert.equal(execFileSync('jq', ['--version']).length > 0, true);
  });

  test('each shown JSON answer is what the pasted commands print', () => {
    for (const b of blocks) {
      const json = b.answers.filter((a) => a.lang === 'json');
      if (!json.length) continue;
      assert.equal(json.length, 1, `${b.name}: one JSON answer per example`);
      const { stdout, stderr } = out.get(b.name)!;
      const printed = (stdout + stderr).split(hubCacheDir()).join('~/.cache/huggingface/hub');
      let actual: unknown;
      try {
        actual = JSON.parse(stable(printed));
      } catch {
        assert.fail(`${b.name}: the commands printed no single JSON answer: ${printed}`);
      }
      assert.deepEqual(actual, JSON.parse(stable(json[0]!.text)), `${b.name}: the README's answer differs from what the commands print`);
    }
  });

  test('each shown header answer: the status line and headers are what curl -si prints', () => {
    for (const b of blocks) {
      for (const a of b.answers.filter((x) => x.lang === '')) {
        const printed = out.get(b.name)!.stdout.replace(/\r/g, '');
        const lines = a.text.split('\n').filter((l) => l !== '...');
        assert.ok(lines.length > 1, `${b.name}: a status line and headers`);
        assert.match(printed, new RegExp(`^${lines[0]!.replace('HTTP/1.1 ', 'HTTP/1\\.1 ')}`, 'm'));
        for (const line of lines.slice(1)) assert.ok(printed.toLowerCase().includes(line.toLowerCase()), `${b.name}: curl printed no '${line}'`);
      }
    }
  });

  test('the pipeline examples used the id the create captured (the execute answered chunks, the delete left none)', async () => {
    assert.ok(Array.isArray(JSON.parse(out.get('example:pipeline-execute')!.stdout)));
    const names = (await app.request('GET', '/v1/pipelines')).body.map((p: { name: string }) => p.name);
    assert.deepEqual(names, ['docs-paragraphs']);
  });
});
