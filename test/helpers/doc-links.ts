import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Relative links and anchors in markdown pages, checked the way GitHub renders them: a link's file
 * must exist, and its `#anchor` must be the slug of a heading (or an HTML id) in the page it
 * points to. Links to other sites are not followed: the tests never leave 127.0.0.1.
 */

/** A page's text without fenced code blocks and inline code spans, where `[x](y)` is not a link. */
function prose(md: string): string {
  return md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading slug: the rendered text, lower-cased, punctuation but `-` and `_` dropped, spaces as hyphens. */
export function slug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers: heading slugs (a repeated one as slug-1, slug-2…, as GitHub does) and HTML ids. */
export function anchors(md: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  const code = md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, text] of code.matchAll(/^#{1,6}[ \t]+(.*?)[ \t#]*$/gm)) {
    const base = slug(text!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  for (const [, id] of md.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) out.add(id!);
  return out;
}

/** The links of a page that stay in the repository: `[text](target)` and `![alt](target)`, no scheme. */
export function relativeLinks(md: string): string[] {
  return [...prose(md).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** The dead links of one page, each as "target: why", relative to `root` for messages. */
export function deadLinks(file: string, root: string): string[] {
  const md = readFileSync(file, 'utf8');
  const dead: string[] = [];
  for (const target of relativeLinks(md)) {
    const [path = '', anchor] = target.split('#', 2) as [string, string | undefined];
    const to = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
    if (!existsSync(to)) {
      dead.push(`${target}: no file ${relative(root, to)}`);
      continue;
    }
    if (anchor === undefined || statSync(to).isDirectory() || !to.endsWith('.md')) continue;
    const page = to === file ? md : readFileSync(to, 'utf8');
    if (!anchors(page).has(decodeURIComponent(anchor))) dead.push(`${target}: no heading #${anchor} in ${relative(root, to)}`);
  }
  return dead;
}

/** Every page the link check covers, relative to `root`. */
export function docPages(root: string, list: (dir: string) => string[]): string[] {
  const md = (dir: string) =>
    list(join(root, dir))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(dir, f));
  const plugins = list(join(root, 'plugins'))
    .map((d) => join('plugins', d, 'README.md'))
    .filter((f) => existsSync(join(root, f)));
  return ['README.md', ...md('docs'), ...['plugins/README.md'].filter((f) => existsSync(join(root, f))), ...plugins];
}
