import { AUTO, LANGUAGES, UNLOADABLE } from './languages.js';

/** README tables derived from the language table (`npm run docs` writes them between markers). */
export function docTables(): Record<string, string> {
  const rows = LANGUAGES.map((l) => `| \`${l.name}\` | ${l.aliases.map((a) => `\`${a}\``).join(', ') || '—'} |`);
  const skipped = Object.entries(UNLOADABLE)
    .map(([name, why]) => `\`${name}\` (${why})`)
    .join('; ');
  return {
    languages: [
      '| language | aliases |',
      '|---|---|',
      ...rows,
      `| \`${AUTO}\` | detect the language (see below) |`,
      '',
      `Shipped by tree-sitter-wasms but not loadable by web-tree-sitter 0.25.10: ${skipped}.`,
    ].join('\n'),
  };
}
