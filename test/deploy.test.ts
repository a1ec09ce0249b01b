/**
 * deploy/ cannot run here (no Docker, no cluster), so its files are checked against the code:
 * every CHUNKD_* variable they set is a setting and its value parses, the probes ask routes that
 * exist and are public, ports agree with the settings, and the parts name each other rightly.
 * The YAML is read with a few line patterns (these files are flat enough), not a parser.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ROOT } from '../kernel/paths.js';
import type { AppDeps } from '../server/route.js';
import { metaRoutes } from '../server/routes/meta.js';
import { resolveSettings, SETTINGS } from '../service/settings.js';

const DEPLOY = join(ROOT, 'deploy');
const read = (path: string) => readFileSync(join(DEPLOY, path), 'utf8');
const files = (dir = ''): string[] =>
  readdirSync(join(DEPLOY, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
const compose = read('docker-compose.yml');
const kubernetes = files('kubernetes')
  .map((f) => read(f))
  .join('\n---\n');
const deployment = read('kubernetes/deployment.yaml');
const ENV_NAMES = new Set<string>(Object.values(SETTINGS).map((s) => s.env));
const unquote = (v: string) =>
  v
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .replace(/^'(.*)'$/, '$1');

/** `NAME: value` entries of compose `environment:` maps, and `- name: NAME` + `value:` pairs of Kubernetes env lists. */
function assignments(text: string): Map<string, string | undefined> {
  const found = new Map<string, string | undefined>();
  for (const m of text.matchAll(/^\s+(CHUNKD_\w+):\s*(.*)$/gm)) found.set(m[1]!, unquote(m[2]!));
  for (const m of text.matchAll(/^\s+- name: (CHUNKD_\w+)\s*\n\s+(value|valueFrom):\s*(.*)$/gm))
    found.set(m[1]!, m[2] === 'value' ? unquote(m[3]!) : undefined);
  return found;
}

describe('deploy/', () => {
  test('every CHUNKD_* variable the files name is a real setting, and every value they set parses', () => {
    const names = files().flatMap((f) => [...read(f).matchAll(/\bCHUNKD_[A-Z0-9_]+/g)].map((m) => `${m[0]} (${f})`));
    assert.ok(names.length > 0);
    for (const n of names) assert.ok(ENV_NAMES.has(n.split(' ')[0]!), `${n} is not a setting in service/settings.ts`);
    for (const [file, text] of [
      ['docker-compose.yml', compose],
      ['kubernetes', kubernetes],
    ] as const) {
      const set = assignments(text);
      assert.ok(set.has('CHUNKD_DATABASE_URL'), `${file} sets CHUNKD_DATABASE_URL`);
      // A value with ${…} is filled in by compose; one from a Secret is unknown here.
      const literal = Object.fromEntries([...set].filter(([, v]) => v !== undefined && !v.includes('${')));
      assert.doesNotThrow(() => resolveSettings({}, literal), `${file}: ${JSON.stringify(literal)}`);
    }
  });

  test('docker-compose: PostgreSQL, three replicas from the repository Dockerfile, nginx in front of all three', () => {
    assert.match(compose, /^ {2}postgres:\n {4}image: postgres:/m);
    assert.match(compose, /healthcheck:\n\s+test: \["CMD-SHELL", "pg_isready/);
    const replicas = [...compose.matchAll(/^ {2}(chunkd-\d+): \*chunkd$/gm)].map((m) => m[1]!);
    assert.deepEqual(replicas, ['chunkd-1', 'chunkd-2', 'chunkd-3']);
    const context = /build:\n\s+context: (\S+)\n\s+dockerfile: (\S+)/.exec(compose)!;
    assert.ok(existsSync(join(DEPLOY, context[1]!, context[2]!)), 'the build uses the repository Dockerfile');
    assert.match(compose, /condition: service_healthy/, 'replicas wait for PostgreSQL');
    assert.match(
      assignments(compose).get('CHUNKD_DATABASE_URL')!,
      /^postgres:\/\/\w+:\$\{POSTGRES_PASSWORD[^}]*\}@postgres:5432\/\w+$/,
      'the URL names the postgres service',
    );
    const mount = /- \.\/(\S+):\/etc\/nginx\/conf\.d\/default\.conf/.exec(compose)!;
    const nginx = read(mount[1]!);
    const upstream = [...nginx.matchAll(/^\s+server (\S+):(\d+)/gm)].map((m) => `${m[1]}:${m[2]}`);
    assert.deepEqual(
      upstream,
      replicas.map((r) => `${r}:${SETTINGS.port.default}`),
      'nginx balances over every replica, on the port the image listens on',
    );
    assert.match(nginx, /proxy_pass http:\/\/chunkd;/);
  });

  test('Kubernetes: probes on public routes (liveness /health, readiness /ready), the port, the URL from a Secret, the HPA on the Deployment', () => {
    const routes = metaRoutes({} as AppDeps);
    const probe = (kind: string) => new RegExp(`${kind}:\\n\\s+httpGet:\\n\\s+path: (\\S+)`).exec(deployment)?.[1];
    for (const [kind, path] of [
      ['livenessProbe', '/health'],
      ['readinessProbe', '/ready'],
    ] as const) {
      assert.equal(probe(kind), path, kind);
      assert.equal(routes.find((r) => r.path === path)?.public, true, `${path} is a public route: probes send no API key`);
    }
    assert.equal(/containerPort: (\d+)/.exec(deployment)?.[1], String(SETTINGS.port.default));
    assert.match(deployment, /- name: CHUNKD_DATABASE_URL\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: \S+\n\s+key: \S+/);
    assert.doesNotMatch(kubernetes, /postgres:\/\/[^'\s]*:[^'\s]*@(?!host)/, 'no credentials in the manifests');
    const grace = Number(assignments(deployment).get('CHUNKD_SHUTDOWN_GRACE_MS') ?? SETTINGS['shutdown-grace-ms'].default);
    const pause = Number(/command: \["sleep", "(\d+)"\]/.exec(deployment)?.[1] ?? 0);
    assert.ok(grace + pause * 1000 < Number(/terminationGracePeriodSeconds: (\d+)/.exec(deployment)![1]) * 1000, 'draining ends before the SIGKILL');
    const hpa = read('kubernetes/hpa.yaml');
    assert.match(hpa, /kind: HorizontalPodAutoscaler/);
    assert.match(hpa, /scaleTargetRef:\n\s+apiVersion: apps\/v1\n\s+kind: Deployment\n\s+name: chunkd/);
    assert.match(deployment, /kind: Deployment\nmetadata:\n\s+name: chunkd/);
    assert.match(deployment, /requests:\n\s+cpu: \S+/, 'the HPA measures CPU against a request');
    const service = read('kubernetes/service.yaml');
    assert.match(service, /selector:\n\s+app: chunkd/);
    assert.match(deployment, /labels:\n\s+app: chunkd/);
  });

  test('nginx lets through every body chunkd accepts, so chunkd answers the 413 with its own message', () => {
    const nginx = read(/- \.\/(\S+):\/etc\/nginx\/conf\.d\/default\.conf/.exec(compose)![1]!);
    const size = (v: string) => Number(v.slice(0, -1)) * { k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[v.at(-1)!.toLowerCase() as 'k' | 'm' | 'g']!;
    const serverLevel = /^ {4}client_max_body_size (\d+[kmg]);/m.exec(nginx);
    assert.ok(serverLevel, 'a server-wide client_max_body_size');
    const jobs = /location \/v1\/jobs \{[^}]*client_max_body_size (\d+[kmg]);/.exec(nginx);
    assert.ok(jobs, 'location /v1/jobs sets its own client_max_body_size');
    // What the replicas run with: compose's literal values, else the defaults.
    const env = Object.fromEntries([...assignments(compose)].filter(([, v]) => v !== undefined && !v.includes('${')));
    const settings = resolveSettings({}, env as Record<string, string>);
    assert.ok(size(serverLevel[1]!) > settings.maxBodyBytes, `client_max_body_size ${serverLevel[1]} is not above --max-body-bytes (${settings.maxBodyBytes})`);
    const largest = Math.max(settings.maxBodyBytes, settings.maxJobBytes);
    assert.ok(
      size(jobs[1]!) > largest,
      `/v1/jobs client_max_body_size ${jobs[1]} is not above the larger of --max-body-bytes and --max-job-bytes (${largest})`,
    );
  });
});
