/**
 * How deep an HTML document nests its elements, estimated in one linear pass over its tags.
 * htmlparser2 (html-to-text's parser) keeps its stack of open elements with Array.unshift, so
 * each tag costs time in proportion to the depth: 80,000 unclosed <div>s (400 kB) take seconds.
 * Refusing documents nested deeper than the limit before parsing keeps the cost linear.
 *
 * Elements that the parser closes by itself when a sibling opens (p, li, td, option, …) and void
 * elements (br, img, …) are not counted, so a page of unclosed <p>s is not mistaken for deep
 * nesting; `/>` closes an element only inside svg or math, as in the parser; comments, CDATA and the contents of script/style/textarea/title are skipped as the
 * parser skips them.
 */
const UNCOUNTED = new Set([
  // void
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'keygen', 'basefont', 'frame',
  // closed implicitly when a sibling opens
  'p', 'li', 'dt', 'dd', 'option', 'optgroup', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'rb', 'rt', 'rp', 'rtc', 'html', 'head', 'body',
]);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);

const TAG = /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<(\/?)([a-zA-Z][^\s/>]*)[^>]*?(\/?)>/g;

export function nestingDepth(html: string): number {
  const lower = html.toLowerCase();
  let depth = 0;
  let deepest = 0;
  let foreign = 0; // open svg/math elements: only inside them does `/>` close an element
  TAG.lastIndex = 0;
  for (let m = TAG.exec(lower); m; m = TAG.exec(lower)) {
    const [, closing, name, selfClosing] = m;
    if (!name) continue; // a comment or CDATA
    if (!closing && RAW_TEXT.has(name)) {
      const end = lower.indexOf(`</${name}`, TAG.lastIndex);
      TAG.lastIndex = end < 0 ? lower.length : end;
      continue;
    }
    if (UNCOUNTED.has(name) || (selfClosing && foreign > 0)) continue;
    const isForeign = name === 'svg' || name === 'math';
    if (closing) {
      depth = Math.max(0, depth - 1);
      if (isForeign) foreign = Math.max(0, foreign - 1);
    } else {
      deepest = Math.max(deepest, ++depth);
      if (isForeign) foreign++;
    }
  }
  return deepest;
}
