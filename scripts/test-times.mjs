/**
 * A test reporter that prints how long each test file took, slowest first (set CHUNKD_TEST_TIMES to
 * a file name and `npm test` writes it there): the list to read when the suite grows slow.
 */
// JavaScript, not TypeScript: Node loads a reporter before any --import hook.
export default async function* fileTimes(source) {
  const files = new Map();
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      const ms = event.data.details?.duration_ms ?? 0;
      files.set(event.data.file, (files.get(event.data.file) ?? 0) + ms);
    }
  }
  const rows = [...files].sort((a, b) => b[1] - a[1]);
  for (const [file, ms] of rows) yield `${(ms / 1000).toFixed(1).padStart(8)} s  ${file}\n`;
  yield `${(rows.reduce((s, [, ms]) => s + ms, 0) / 1000).toFixed(1).padStart(8)} s  in all (${rows.length} files)\n`;
}
