/**
 * Security headers on every answer (pages, JSON, NDJSON, errors, 404s, 413s), and a
 * Content-Security-Policy the browser pages live with: /playground, /docs and /redoc render in
 * headless Chromium with no violation reported, and no page of another origin can frame them.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { SECURITY_HEADERS } from '../server/middleware/security-headers.js';
import { startApp, type TestApp } from './helpers/app.js';
import { launchChromium } from './helpers/browser.js';

// Callbacks passed to page.evaluate and friends run in the browser; this file is type-checked for Node.
declare const document: any, window: any;

const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

function assertSecure(headers: Headers, what: string): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) assert.equal(headers.get(name), value, `${name} on ${what}`);
}

describe('security headers', () => {
  let app: TestApp;
  before(async () => (app = await startApp({ 'max-body-bytes': '1000', 'max-file-bytes': '100' })));
  after(() => app.close());

  test('the headers say what the README says', () => {
    const csp = SECURITY_HEADERS['Content-Security-Policy']!;
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/, 'no inline script and no eval');
    assert.equal(SECURITY_HEADERS['X-Frame-Options'], 'DENY');
    assert.equal(SECURITY_HEADERS['X-Content-Type-Options'], 'nosniff');
    assert.equal(SECURITY_HEADERS['Referrer-Policy'], 'no-referrer');
  });

  test('on every kind of answer: page, asset, JSON, NDJSON, 404, 422, 413 (JSON and multipart)', async () => {
    const answers: [string, Promise<Response>][] = [
      ['/health', fetch(`${app.url}/health`)],
      ['/docs', fetch(`${app.url}/docs`)],
      ['/docs/assets/init.js', fetch(`${app.url}/docs/assets/init.js`)],
      ['a chunk answer', fetch(`${app.url}/v1/chunk/token`, { method: 'POST', body: '{"text": "hello"}', headers: { 'content-type': 'application/json' } })],
      [
        'an NDJSON answer',
        fetch(`${app.url}/v1/chunk/token`, {
          method: 'POST',
          body: '{"text": ["a", "b"]}',
          headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
        }),
      ],
      ['a 404', fetch(`${app.url}/nowhere`)],
      ['a 422', fetch(`${app.url}/v1/chunk/token`, { method: 'POST', body: '{"text": 1}', headers: { 'content-type': 'application/json' } })],
      [
        'a 413',
        fetch(`${app.url}/v1/chunk/token`, {
          method: 'POST',
          body: JSON.stringify({ text: 'x'.repeat(2000) }),
          headers: { 'content-type': 'application/json' },
        }),
      ],
      [
        'a multipart 413',
        fetch(`${app.url}/v1/files`, {
          method: 'POST',
          body: (() => {
            const f = new FormData();
            f.append('file', new Blob(['x'.repeat(200)]), 'a.txt');
            return f;
          })(),
        }),
      ],
    ];
    const statuses: Record<string, number> = {};
    for (const [what, answer] of answers) {
      const res = await answer;
      statuses[what] = res.status;
      await res.arrayBuffer();
      assertSecure(res.headers, what);
    }
    assert.equal(statuses['an NDJSON answer'], 200);
    assert.equal(statuses['a 404'], 404);
    assert.equal(statuses['a 422'], 422);
    assert.equal(statuses['a 413'], 413);
    assert.equal(statuses['a multipart 413'], 413);
  });
});

describe('the pages under the policy, in Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  let framer: ReturnType<typeof createServer>;
  let framerUrl: string;
  before(async () => {
    browser = await launchChromium();
    app = await startApp();
    // Another origin (another port) that tries to frame our pages.
    framer = createServer((req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><iframe id="f" src="${app.url}${req.url}"></iframe>`);
    });
    await new Promise<void>((r) => framer.listen(0, '127.0.0.1', r));
    framerUrl = `http://127.0.0.1:${(framer.address() as AddressInfo).port}`;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    framer?.close();
  });

  const pages: [string, string, (page: import('playwright-core').Page) => Promise<unknown>][] = [
    ['/docs', 'Swagger UI shows the operations', (p) => p.waitForSelector('.opblock-summary-path', { timeout: 60_000 })],
    ['/redoc', 'ReDoc shows the operations', (p) => p.waitForSelector('[data-section-id^="tag/"], .api-content h2', { timeout: 60_000 })],
    [
      '/playground',
      'the playground lists the chunkers',
      (p) => p.waitForSelector('#source option[value="chunker:token"]', { state: 'attached', timeout: 60_000 }),
    ],
  ];
  for (const [path, what, rendered] of pages) {
    test(`${path}: ${what}, with no Content-Security-Policy violation`, async () => {
      const page = await browser.newPage();
      try {
        const violations: string[] = [];
        page.on('console', (m) => {
          if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
        });
        await page.addInitScript(() => {
          document.addEventListener('securitypolicyviolation', (e: any) => (window.__violations ??= []).push(`${e.violatedDirective} ${e.blockedURI}`));
        });
        await page.goto(app.url + path);
        await rendered(page);
        // ReDoc builds its search index in a worker after the first paint: give it a moment to run under the policy too.
        await page.waitForLoadState('networkidle');
        violations.push(...((await page.evaluate(() => window.__violations ?? [])) as string[]));
        // ReDoc's sidebar shows Redocly's logo from their CDN (and hides it when it fails to load):
        // the one remote load of the three pages, which the policy is there to block.
        assert.deepEqual(
          violations.filter((v) => !v.includes(REDOC_CDN_LOGO)),
          [],
        );
      } finally {
        await page.close();
      }
    });
  }

  test('a page of another origin cannot frame them', async () => {
    const page = await browser.newPage();
    try {
      for (const path of ['/docs', '/playground']) {
        await page.goto(framerUrl + path);
        const frame = page.frames().find((f) => f !== page.mainFrame());
        assert.ok(frame, 'the iframe exists');
        await page.waitForLoadState('load');
        // A refused frame is left as an error page: none of ours is in it.
        const html = await frame.content().catch(() => '');
        assert.doesNotMatch(html, /swagger-ui|id="app"/, `${path} was rendered inside another origin's frame`);
      }
      // Control: the same page opened on its own renders.
      await page.goto(app.url + '/docs');
      assert.match(await page.content(), /swagger-ui/);
    } finally {
      await page.close();
    }
  });
});
