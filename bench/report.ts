/** results.md: machine, date and command, the target checklist, then one section per suite. */
import { execFileSync } from 'node:child_process';
import { cpus, release, totalmem, type as osType } from 'node:os';
import type { ChildReply } from './child.js';
import { mbPerS, median, type Check, type Measured, type Options, type Section, type ThroughputSuite } from './harness.js';
import { num, ratio, table, verdict } from './table.js';
import { WHY } from './why.js';

export interface Row {
  id: string;
  label: string;
  role: string;
  job: string;
  /** Why the case cannot run here. */
  missing?: string;
  /** One reply per round (a hole where a round skipped the case). */
  results: (ChildReply | undefined)[];
}

const speed = (m: Measured) => mbPerS(m.bytes, m.medianMs);
/** MB per CPU-second: the speed a busy neighbour barely moves (its load shows in wall time, not in this process's CPU time). */
const cpuSpeed = (m: Measured) => mbPerS(m.bytes, m.cpuMs);
const measured = (r: ChildReply | undefined) => (r && 'ok' in r ? r.ok : undefined);
/** Stopped at the time limit: its speed is an upper bound. */
const stopped = (m: Measured) => m.runs === 0;

/** Later rounds repeat a case only if it ran, finished, and is fast enough for noise to matter. */
export const repeatable = (first: ChildReply | undefined) => {
  const m = measured(first);
  return m !== undefined && !stopped(m) && m.runs > 1;
};

/** The rounds of a row as one measurement: the median of the rounds' medians, the largest peak RSS. */
function combine(row: Row): Measured | undefined {
  const ms = row.results.map(measured).filter((m): m is Measured => m !== undefined);
  if (!ms.length) return undefined;
  return {
    ...ms[0]!,
    runs: ms.reduce((n, m) => n + m.runs, 0),
    medianMs: median(ms.map((m) => m.medianMs)),
    cpuMs: median(ms.map((m) => m.cpuMs)),
    peakRssMb: Math.max(...ms.map((m) => m.peakRssMb)),
  };
}

/** ours / theirs: the median of per-round ratios where both ran in a round (noise hits both alike), else of the medians. */
function pairedRatio(a: Row, b: Row, by: (m: Measured) => number): { value: number; bound: boolean } | undefined {
  const ma = combine(a);
  const mb = combine(b);
  if (!ma || !mb || stopped(ma)) return undefined;
  const paired = a.results.flatMap((r, i) => {
    const x = measured(r);
    const y = measured(b.results[i]);
    return x && y && !stopped(y) ? [by(x) / by(y)] : [];
  });
  const value = paired.length ? median(paired) : by(ma) / by(mb);
  return Number.isFinite(value) ? { value, bound: stopped(mb) } : undefined;
}

/** The two ratios a row is compared by: speed per CPU-second (what targets judge) and per wall-clock second. */
const ratios = (a: Row, b: Row) => ({ cpu: pairedRatio(a, b, cpuSpeed), wall: pairedRatio(a, b, speed) });

const showRatio = (r: { value: number; bound: boolean } | undefined) => (r ? `${r.bound ? '> ' : ''}${ratio(r.value)}` : '—');

function failure(row: Row): string | undefined {
  if (row.missing) return `not run: ${row.missing}`;
  const errors = row.results.filter((r): r is { error: string } => !!r && 'error' in r);
  return errors.length && !combine(row) ? `failed: ${errors[0]!.error}` : undefined;
}

/** A throughput suite's table (one row per case, grouped by job), its ratios to each peer, and its target checks. */
export function throughputSection(suite: ThroughputSuite, options: Options, rows: Row[]): Section {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const body: string[] = [suite.about(options), ''];
  body.push(
    table(
      ['case', 'job', 'MB/s', 'CPU ms per run', 'chunks/s', 'chunks', 'peak RSS (MB)', 'runs'],
      rows.map((r) => {
        const label = r.role === 'ours' ? `**${r.label}**` : r.label;
        const fail = failure(r);
        const m = combine(r);
        if (fail || !m) return [label, r.job, fail ?? 'no result', '', '', '', '', ''];
        if (stopped(m)) return [label, r.job, `< ${num(speed(m))} (stopped after ${Math.round(m.medianMs / 1e3)} s)`, '', '', '', '', 0];
        const perS = m.chunks ? num(m.chunks / (m.medianMs / 1e3)) : '—';
        return [label, r.job, num(speed(m)), num(m.cpuMs), perS, m.chunks || '—', num(m.peakRssMb), m.runs];
      }),
    ),
  );
  const pairs: (string | number)[][] = [];
  for (const mine of rows.filter((r) => r.role === 'ours')) {
    for (const them of rows.filter((r) => r.job === mine.job && r.role !== 'ours')) {
      const r = ratios(mine, them);
      pairs.push([mine.label, them.label, showRatio(r.cpu), showRatio(r.wall)]);
    }
  }
  if (pairs.length) body.push('', table(['chunkd', 'vs (same job, same text, same tokenizer)', 'speed ratio by CPU time', 'by wall time'], pairs));
  const checks: Check[] = suite.targets.map((t) => {
    const mine = byId.get(t.ours)!;
    const ref = t.ref ? byId.get(t.ref) : undefined;
    const m = combine(mine);
    // A ratio target judges by CPU time (paired per round), the wall-clock ratio shown beside it.
    const r = ref ? ratios(mine, ref) : undefined;
    const value = ref ? r?.cpu?.value : m && !stopped(m) ? speed(m) : undefined;
    const note = [mine, ref].map((x) => x && failure(x)).find(Boolean);
    const shown = value === undefined ? undefined : ref ? `${showRatio(r?.cpu)} CPU (wall ${showRatio(r?.wall)})` : `${num(value)} MB/s`;
    return { what: t.what, measured: shown, met: value === undefined ? undefined : value >= t.min, note };
  });
  return { title: suite.title, body: body.join('\n'), checks };
}

export interface RunInfo {
  command: string;
  started: Date;
  seconds: number;
  quick: boolean;
  baselineRssMb: number | undefined;
  skipped: string[];
}

export function document(info: RunInfo, sections: Section[]): string {
  const checks = sections.flatMap((s) => s.checks);
  const out: string[] = [
    '# chunkd benchmarks',
    '',
    '<!-- Generated by `npm run bench` (bench/run.ts); do not edit by hand. -->',
    '',
    `Measured side by side in one run: every chunker against its peers on the same text with the same tokenizer. Figures are ratios between rows of the same run, not claims about other machines. Each throughput row runs in its own child process (warm-up, then repeated runs; the median is reported), and reports both its wall-clock time and the CPU time its process spent per run; a ratio target is judged by CPU time (a busy neighbour on the shared cores inflates wall time, not this process's CPU time), paired per round with its peer, the wall-clock ratio beside it. Peak RSS is that process's, including about ${num(info.baselineRssMb)} MB that an idle Node process with the TypeScript loader already holds.`,
    '',
    table(
      ['', ''],
      [
        ['command', `\`${info.command}\``],
        ['date', info.started.toISOString().replace(/\.\d+Z$/, 'Z')],
        ['duration', `${Math.round(info.seconds)} s`],
        ['machine', machine()],
        ['node', process.version],
        ['commit', commit()],
      ],
    ),
    '',
    '## Targets',
    '',
    table(
      ['target', 'measured', 'verdict', 'why'],
      checks.map((c) => [c.what, c.measured ?? '—', verdict(c.met), why(c)]),
    ),
    '',
  ];
  if (info.quick) out.push('_A --quick smoke run: small inputs, one timed run per case; do not read the figures as results._', '');
  for (const s of sections) out.push(`## ${s.title}`, '', s.body, '');
  if (info.skipped.length) out.push('## Not benchmarked', '', ...info.skipped.map((s) => `- ${s}`), '');
  return out.join('\n');
}

function why(c: Check): string {
  if (c.met === undefined) return c.note ?? 'not measured';
  const known = WHY[c.what];
  return (c.met ? known?.met : known?.missed) ?? (c.met ? '' : 'no analysis yet');
}

function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, ${osType()} ${release()} (shared with other jobs: noisy)`;
}

function commit(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    // results.md itself is not code: the quality suites write their sections into it during the run.
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)bench/results.md'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return dirty ? `${sha} (with uncommitted changes)` : sha;
  } catch {
    return 'unknown (not a git checkout)';
  }
}
