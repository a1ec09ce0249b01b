/**
 * HTTP overhead: a small chunk request to chunkd against the same JSON body sent to a raw node:http
 * echo, both in their own process, loaded the same way (autocannon, keep-alive connections),
 * rounds alternating between the two so a noisy neighbour hits both. Beside req/s it reports the
 * CPU each server spent per request (less moved by neighbours than req/s) and the load
 * generator's own CPU, which shows whether it, not the server, set the pace.
 */
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { median, type CustomSuite, type Options, type Section } from '../harness.js';
import { startBuiltChunkd, startServer, type BenchServer } from '../servers/spawn.js';
import { num, ratio, table } from '../table.js';

const BODY = JSON.stringify({
  text: 'The quick brown fox jumps over the lazy dog. It barked twice, then slept until noon. Nobody minded: the sun was warm and the day was long.',
  chunk_size: 32,
});
const CONNECTIONS = 10;
const TARGET = 0.5;
/** chunkd's server CPU per small request, at most this many times the bare Koa echo's. */
const CPU_TARGET = 1.4;

interface Round {
  reqPerS: number;
  p99Ms: number;
  non2xx: number;
  /** CPU time of the server process per request (µs); undefined where /proc is not readable. */
  serverUs?: number;
  /** CPU of the load generator (this process) over the round, in cores. */
  generatorCores: number;
}

async function load(url: string, seconds: number, pid?: number): Promise<Round> {
  const cpu0 = cpuMs(pid);
  const own0 = process.cpuUsage();
  const started = performance.now();
  const r = await autocannon({ url, method: 'POST', body: BODY, headers: { 'content-type': 'application/json' }, connections: CONNECTIONS, duration: seconds });
  const own = process.cpuUsage(own0);
  const cpu1 = cpuMs(pid);
  const serverUs = cpu0 === undefined || cpu1 === undefined || !r.requests.total ? undefined : ((cpu1 - cpu0) * 1000) / r.requests.total;
  return {
    reqPerS: r.requests.average,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx + r.errors,
    serverUs,
    generatorCores: (own.user + own.system) / 1000 / (performance.now() - started),
  };
}

/** User + system CPU of a process in ms, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks (USER_HZ, 100 on Linux)
  } catch {
    return undefined;
  }
}

export const httpSuite: CustomSuite = {
  kind: 'custom',
  name: 'http',
  title: 'HTTP',
  async run(o: Options): Promise<Section> {
    // Seven shorter rounds rather than three long ones: a neighbour's burst moves one round, and the median of seven holds against it.
    const rounds = o.quick ? 1 : 7;
    const seconds = o.quick ? 2 : 3;
    const echo = await startServer('echo');
    const koa = await startServer('koa-echo');
    // The server as `npm start` runs it: built first (its prestart step), then started from dist/.
    const chunkd = await startBuiltChunkd();
    const targets: [string, BenchServer, string][] = [
      ['raw node:http JSON echo', echo, `${echo.url}/`],
      ['chunkd POST /v1/chunk/token', chunkd, `${chunkd.url}/v1/chunk/token`],
      ['bare Koa + koa-bodyparser JSON echo', koa, `${koa.url}/`],
    ];
    const results = new Map<string, Round[]>(targets.map(([name]) => [name, []]));
    let rss: number | undefined;
    try {
      for (const [, , url] of targets) await load(url, o.quick ? 1 : 2); // warm-up: JIT, connections
      for (let i = 0; i < rounds; i++) for (const [name, server, url] of targets) results.get(name)!.push(await load(url, seconds, server.child.pid));
    } finally {
      rss = (await chunkd.stats()).peakRssMb;
      await Promise.all([echo.stop(), koa.stop(), chunkd.stop()]);
    }
    const summary = targets.map(([name]) => {
      const rs = results.get(name)!;
      const us = rs.flatMap((r) => (r.serverUs === undefined ? [] : [r.serverUs]));
      return {
        name,
        reqPerS: median(rs.map((r) => r.reqPerS)),
        p99Ms: median(rs.map((r) => r.p99Ms)),
        bad: rs.reduce((n, r) => n + r.non2xx, 0),
        serverUs: us.length ? median(us) : undefined,
        generator: median(rs.map((r) => r.generatorCores)),
      };
    });
    const [raw, ours, framework] = summary as [(typeof summary)[0], (typeof summary)[0], (typeof summary)[0]];
    // Server CPU per request, chunkd over the bare Koa echo, paired per round (both ran back to back in it).
    const koaRounds = results.get(targets[2]![0])!;
    const cpuPaired = results.get(targets[1]![0])!.flatMap((r, i) => (r.serverUs && koaRounds[i]?.serverUs ? [r.serverUs / koaRounds[i]!.serverUs!] : []));
    const cpuRatio = ours.bad || !cpuPaired.length ? undefined : median(cpuPaired);
    const value = ours.bad ? undefined : ours.reqPerS / raw.reqPerS;
    const body = [
      `A ${BODY.length}-byte JSON body (\`{"text": <140 characters>, "chunk_size": 32}\`; the token chunker with the character tokenizer), ${CONNECTIONS} keep-alive connections, ${rounds} round(s) of ${seconds} s per server after a warm-up; medians of the rounds. chunkd runs built (dist/, built first, as \`npm start\` does), as deployed. The load generator shares the 2 cores with the server, as it does for both servers.`,
      '',
      table(
        ['server', 'req/s', 'p99 latency (ms)', 'server CPU per request (µs)', 'load generator CPU (cores)', 'non-2xx or errors'],
        summary.map((s) => [s.name, num(s.reqPerS), num(s.p99Ms), num(s.serverUs), num(s.generator), s.bad]),
      ),
      '',
      `chunkd / raw echo: **${ratio(value)}** req/s; server CPU per request, raw echo / chunkd: ${ratio(raw.serverUs && ours.serverUs ? raw.serverUs / ours.serverUs : undefined)}; chunkd server peak RSS ${num(rss)} MB. The bare Koa echo (the framework chunkd is built on, with the same body parser, doing nothing else) reaches ${ratio(framework.reqPerS / raw.reqPerS)} of the raw echo; chunkd reaches ${ratio(ours.reqPerS / framework.reqPerS)} of it, and spends ${ratio(cpuRatio)} its server CPU per request (the median of the rounds' ratios).`,
    ].join('\n');
    const note = ours.bad ? `chunkd answered ${ours.bad} requests with an error` : undefined;
    const check = {
      what: `HTTP small request ≥ ${TARGET}× raw echo req/s`,
      measured: value === undefined ? undefined : ratio(value),
      met: value === undefined ? undefined : value >= TARGET,
      note,
    };
    const cpuCheck = {
      what: `chunkd server CPU per small request ≤ ${CPU_TARGET}× the bare Koa echo's`,
      measured:
        cpuRatio === undefined
          ? undefined
          : `${ratio(cpuRatio)} (${num(ours.serverUs)} µs against ${num(framework.serverUs)} µs; req/s ${ratio(ours.reqPerS / framework.reqPerS)} of Koa's)`,
      met: cpuRatio === undefined ? undefined : cpuRatio <= CPU_TARGET,
      note: note ?? 'server CPU not readable (/proc)',
    };
    return { title: this.title, body, checks: [cpuCheck, check] };
  },
};
