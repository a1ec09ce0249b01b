/**
 * The HTML depth limit follows html-to-text's parser (htmlparser2): documents that nest deeper
 * than maxHtmlDepth by its rules are refused (413) however they spell it — end tags that close
 * nothing, elements no other tag closes (<html>, <thead>), an <iframe> (not raw text to this
 * parser) — and the scan stops one element past the limit, so it reads each input once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nestingDepth } from '../plugins/html/html-depth.js';
import { extractText } from './helpers/extract.js';
import { rejectsWith } from './helpers/env.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const DEEP = /more levels of nested elements than this server extracts \(1024, limit maxHtmlDepth\)/;

describe('html: depth as the parser nests', () => {
  const hostile: [string, string][] = [
    ["'<div></x>' × 80,000 (an end tag that closes nothing)", '<div></x>'.repeat(80_000)],
    ["'<div></x>' × 300,000", '<div></x>'.repeat(300_000)],
    ['<html> × 80,000', '<html>'.repeat(80_000)],
    ['<iframe> then 80,000 <div>s', `<iframe>${'<div>'.repeat(80_000)}`],
    ['nested <thead> × 80,000', `<table>${'<thead>'.repeat(80_000)}`],
    ['<body> × 80,000', '<body>'.repeat(80_000)],
  ];

  for (const [name, html] of hostile) {
    it(`${name} → 413 naming maxHtmlDepth`, async () => {
      await rejectsWith(extractText(utf8(html), { filename: 'deep.html' }), 413, DEEP);
    });
  }

  it('the scan stops one element past the cap, whatever follows', () => {
    for (const [, html] of hostile) assert.equal(nestingDepth(html, 1024), 1025);
    assert.equal(nestingDepth(`${'<div>'.repeat(2000)}${'</x>'.repeat(100_000)}`, 1024), 1025);
  });

  it('depth that the parser closes is not counted: <p>, <li>, <td>/<tr>, <option>, void elements', async () => {
    const shallow = [
      '<p>x'.repeat(5000),
      '<ul>' + '<li>x'.repeat(5000),
      '<table>' + '<tr><td>x'.repeat(5000),
      '<select>' + '<option>x'.repeat(5000),
      '<br><img src=a><hr>'.repeat(5000),
    ];
    for (const html of shallow) assert.ok(nestingDepth(html, 1024) <= 3, html.slice(0, 30));
    const text = (await extractText(utf8('<ul>' + '<li>x'.repeat(3000) + '</ul>'), { filename: 'list.html' })).text;
    assert.equal(text.split('\n').length, 3000);
  });
});
