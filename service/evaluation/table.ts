import type { CandidateResult } from './evaluate.js';
import type { Summary } from './metrics.js';

/** `mean ± std` in percent, with the benchmark's precision: one decimal for recall and precision Ω, two for precision and IoU. */
export const pm = (s: Summary, digits: number): string => `${s.mean.toFixed(digits)} ± ${s.std.toFixed(digits)}`;

/** A short name for a candidate: a pipeline id as it is, inline steps as chunker(config) → refineries. */
export function candidateName(candidate: unknown): string {
  if (typeof candidate === 'string') return candidate;
  if (!Array.isArray(candidate)) return JSON.stringify(candidate);
  return candidate
    .map((s: { chunker?: string; refinery?: string; config?: Record<string, unknown> }) => {
      const config = Object.entries(s.config ?? {})
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(' ');
      return `${s.chunker ?? s.refinery}${config ? ` ${config}` : ''}`;
    })
    .join(' → ');
}

/** The results as a Markdown table, one row per candidate, retriever and k. */
export function resultsTable(results: readonly CandidateResult[], name: (candidate: unknown) => string = candidateName): string {
  const head =
    '| candidate | retriever | k | chunks | mean tokens | recall | precision | IoU | precision Ω | time (ms) |\n|---|---|---|---|---|---|---|---|---|---|';
  const rows = results.map(
    (r) =>
      `| ${name(r.candidate).replaceAll('|', '\\|')} | ${r.retriever} | ${r.k} | ${r.chunks} | ${Math.round(r.mean_tokens)} | ${pm(r.recall, 1)} | ${pm(r.precision, 2)} | ${pm(r.iou, 2)} | ${pm(r.precision_omega, 1)} | ${r.time_ms} |`,
  );
  return [head, ...rows].join('\n');
}
