/**
 * `npm run bench [-- --quick] [suite…]`: every suite (or the named ones), one results document.
 * A full run of every suite writes bench/results.md; a filtered or --quick run prints only,
 * unless --out names a file. Never part of `npm test`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pluginNames } from './chunkd.js';
import { BASELINE, childMain, runInChild } from './child.js';
import { rounds, type Options, type Section } from './harness.js';
import { document, repeatable, throughputSection, type Row } from './report.js';
import { SKIPPED } from './skipped.js';
import { SUITES } from './suites/index.js';

const RESULTS = fileURLToPath(new URL('./results.md', import.meta.url));
const HELP = `Usage: npm run bench -- [--quick] [--out FILE] [suite ...]
  suites: ${SUITES.map((s) => s.name).join(', ')} (default: all)
  --quick  small inputs, one timed run per case: a smoke run, not results
  --out    write the markdown there (default: bench/results.md for a full run of every suite)
  --data   the quality suites' benchmark data folder (or CHUNKD_QUALITY_DATA): corpora/*.md, questions.csv;
           quality-heldout takes several, joined with the path delimiter (DIR1:DIR2)`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
      data: { type: 'string' },
      child: { type: 'string' },
      help: { type: 'boolean' },
    },
    allowPositionals: true,
  });
  if (values.child) {
    await childMain(values.child, values.quick!);
    return 0;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const unknown = positionals.filter((p) => !SUITES.some((s) => s.name === p));
  if (unknown.length) {
    console.error(`Unknown suite ${unknown.join(', ')}.\n${HELP}`);
    return 2;
  }
  if (values.data) process.env.CHUNKD_QUALITY_DATA = values.data; // the quality suite's data folder
  const suites = positionals.length ? SUITES.filter((s) => positionals.includes(s.name)) : SUITES;
  const quick = values.quick!;
  const options: Options = { quick, plugins: await pluginNames() };
  const started = new Date();
  const baseline = await runInChild('', BASELINE, quick);

  const sections: Section[] = [];
  for (const suite of suites) {
    progress(`suite ${suite.name}`);
    if (suite.kind === 'custom') {
      sections.push(await suite.run(options));
      continue;
    }
    const cases = suite.cases(options);
    const rows: Row[] = cases.map((c) => ({ id: c.id, label: c.label, role: c.role, job: c.job, missing: c.missing, results: [] }));
    for (let round = 0; round < rounds(quick); round++) {
      for (const row of rows) {
        if (row.missing || (round > 0 && !repeatable(row.results[0]))) continue;
        progress(`  ${round + 1}/${rounds(quick)} ${row.label} [${row.job}]`);
        const result = await runInChild(suite.name, row.id, quick);
        if ('error' in result) progress(`    failed: ${result.error}`);
        row.results[round] = result;
      }
    }
    sections.push(throughputSection(suite, options, rows));
  }

  const command = ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ');
  const seconds = (Date.now() - started.getTime()) / 1e3;
  const md = document({ command, started, seconds, quick, baselineRssMb: 'ok' in baseline ? baseline.ok.peakRssMb : undefined, skipped: SKIPPED }, sections);
  const out = values.out ?? (!quick && !positionals.length ? RESULTS : undefined);
  if (out) writeFileSync(out, md);
  console.log(md);
  progress(`done in ${Math.round(seconds)} s${out ? `; wrote ${out}` : ''}`);
  return 0;
}

const progress = (line: string) => process.stderr.write(`${line}\n`);

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
