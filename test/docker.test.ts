/**
 * Docker cannot run on the CI machines, so the Dockerfile's structure is checked instead: stages,
 * build tools only where they are needed, the extras argument, a non-root user, the port, the data
 * volume and the health check, all against the settings the code declares.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ROOT } from '../kernel/paths.js';
import { SETTINGS } from '../service/settings.js';

interface Instruction {
  op: string;
  args: string;
}

/** Instructions of a Dockerfile (continuations joined, comments dropped), grouped by stage. */
function parse(text: string): { args: Instruction[]; stages: { name: string; body: Instruction[] }[] } {
  const lines = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const all = lines
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [, op, args] = /^(\S+)\s+(.*)$/.exec(l)!;
      return { op: op!.toUpperCase(), args: args!.replace(/\s+/g, ' ') };
    });
  const stages: { name: string; body: Instruction[] }[] = [];
  const args: Instruction[] = [];
  for (const ins of all) {
    if (ins.op === 'FROM') stages.push({ name: /\sAS\s+(\S+)$/i.exec(ins.args)?.[1] ?? '', body: [ins] });
    else if (stages.length) stages.at(-1)!.body.push(ins);
    else args.push(ins);
  }
  return { args, stages };
}

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const { stages } = parse(dockerfile);
const build = stages[0]!;
const runtime = stages.at(-1)!;
const find = (stage: { body: Instruction[] }, op: string) => stage.body.filter((i) => i.op === op);
const envOf = (stage: { body: Instruction[] }) =>
  Object.fromEntries(find(stage, 'ENV').flatMap((i) => [...i.args.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])));

describe('Dockerfile', () => {
  test('is multi-stage: named stages, the runtime copies from the build', () => {
    assert.ok(stages.length >= 2);
    for (const s of stages) assert.ok(s.name, `every stage is named: ${s.body[0]!.args}`);
    assert.ok(
      find(runtime, 'COPY').some((c) => c.args.startsWith(`--from=${build.name} `)),
      'the runtime stage copies the build',
    );
  });

  test('the build stage has the tools sqlite3 compiles with, skips the onnxruntime download, installs with npm install', () => {
    const runs = find(build, 'RUN')
      .map((r) => r.args)
      .join('\n');
    for (const tool of ['python3', 'make', 'g++']) assert.match(runs, new RegExp(`apt-get install .*\\b${tool.replace('+', '\\+')}`), tool);
    assert.equal(envOf(build).ONNXRUNTIME_NODE_INSTALL, 'skip');
    assert.match(runs, /npm install /);
    assert.doesNotMatch(runs, /npm ci\b/);
    assert.match(runs, /npm run build/);
    assert.match(runs, /npm prune --omit=dev/);
  });

  test('the runtime stage has no compilers and runs what npm start runs', () => {
    assert.doesNotMatch(
      find(runtime, 'RUN')
        .map((r) => r.args)
        .join('\n'),
      /apt-get|g\+\+|python3/,
    );
    const cmd = JSON.parse(find(runtime, 'CMD').at(-1)!.args) as string[];
    const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    assert.equal(cmd.join(' '), start);
  });

  test('runs as a non-root user, who owns the data directory', () => {
    const user = find(runtime, 'USER').at(-1)?.args;
    assert.ok(user && !/^(root|0)(:|$)/.test(user), `USER ${user}`);
    const index = (op: string) => runtime.body.findIndex((i) => i.op === op);
    assert.ok(index('USER') < index('CMD'), 'USER comes before CMD');
    const dataDir = envOf(runtime).CHUNKD_DATA_DIR!;
    assert.ok(
      find(runtime, 'RUN').some((r) => r.args.includes(`chown ${user}:${user} ${dataDir}`)),
      `${dataDir} is owned by ${user}`,
    );
  });

  test('EXPOSE, VOLUME and ENV agree with the settings', () => {
    const env = envOf(runtime);
    const names = new Set<string>(Object.values(SETTINGS).map((s) => s.env));
    for (const key of Object.keys(env).filter((k) => k.startsWith('CHUNKD_'))) assert.ok(names.has(key), `${key} is not a setting`);
    assert.equal(find(runtime, 'EXPOSE').at(-1)?.args, String(env.CHUNKD_PORT ?? SETTINGS.port.default));
    assert.equal(env.CHUNKD_PORT, String(SETTINGS.port.default));
    const volumes = find(runtime, 'VOLUME').flatMap((v) => JSON.parse(v.args) as string[]);
    assert.deepEqual(volumes, [env.CHUNKD_DATA_DIR], 'the data directory is the volume');
    assert.ok(Number(env.CHUNKD_SHUTDOWN_GRACE_MS) < 10_000, "the grace period ends before docker stop's SIGKILL");
  });

  test('the health check asks /health with node (no curl in the image)', () => {
    const check = find(runtime, 'HEALTHCHECK').at(-1)!.args;
    const cmd = JSON.parse(check.slice(check.indexOf('CMD ') + 4)) as string[];
    assert.equal(cmd[0], 'node');
    assert.match(cmd.join(' '), /\/health/);
    assert.doesNotMatch(check, /curl|wget/);
  });

  test('the EXTRAS argument prunes the optional extras after the build', () => {
    const bin = mkdtempSync(join(tmpdir(), 'chunkd-docker-'));
    try {
      // A stand-in npm that records its arguments, to run the RUN lines' shell logic without Docker.
      const log = join(bin, 'calls');
      writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho "$@" >> ${log}\n`);
      chmodSync(join(bin, 'npm'), 0o755);
      const npmRuns = find(build, 'RUN').filter((r) => r.args.includes('npm '));
      const arg = find(build, 'ARG')
        .map((a) => a.args.split('=')[0]!)
        .find((name) => npmRuns.some((r) => r.args.includes(`$${name}`)));
      assert.ok(arg, 'an ARG drives the npm commands');
      const calls = (value?: string) => {
        rmSync(log, { force: true });
        for (const r of npmRuns) execFileSync('sh', ['-c', r.args], { env: { PATH: `${bin}:${process.env.PATH}`, ...(value ? { [arg]: value } : {}) } });
        return readFileSync(log, 'utf8').trim().split('\n');
      };
      // The install stays whole (the bundler's native binaries are optional packages the build needs); the prune drops the extras.
      const none = calls('none');
      assert.equal(none.filter((c) => /^prune\b/.test(c) && /--omit=optional/.test(c)).length, 1, none.join('; '));
      for (const c of none.filter((c) => /^install\b/.test(c))) assert.doesNotMatch(c, /--omit=optional/, c);
      for (const c of calls()) assert.doesNotMatch(c, /--omit=optional/, `by default: ${c}`);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

describe('.dockerignore', () => {
  test('keeps host installs, builds, local data and VCS files out of the build context', () => {
    const file = join(ROOT, '.dockerignore');
    assert.ok(existsSync(file));
    const entries = readFileSync(file, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const dataDir = SETTINGS['data-dir'].default.replace(/^\.\//, '');
    for (const entry of ['node_modules', 'dist', dataDir, '.git']) assert.ok(entries.includes(entry), entry);
  });
});

test('docs/docker.md explains the image, the volume, and that CI checks the Dockerfile without running Docker', () => {
  const page = readFileSync(join(ROOT, 'docs/docker.md'), 'utf8');
  const from = page.indexOf('## Docker');
  assert.ok(from >= 0, 'a Docker section');
  const section = page.slice(from, page.indexOf('\n## ', from + 1));
  for (const needle of ['docker build', '-v chunkd-data:/data', 'EXTRAS=none', 'Docker cannot run', 'test/docker.test.ts'])
    assert.ok(section.includes(needle), needle);
});
