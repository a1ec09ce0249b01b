/**
 * The plan of the tree is kept by ESLint (scripts/eslint.config.js; `npm run lint`; `npm test` runs the same checks
 * first). These cases prove the rules see each kind of violation, so a rule that stopped matching
 * (a renamed folder, a resolver that no longer finds `.ts` behind `.js`) fails here, not silently.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { SOURCE_ROOT } from './helpers/source-root.js';

const eslint = new ESLint({ cwd: SOURCE_ROOT, overrideConfigFile: join(SOURCE_ROOT, 'scripts/eslint.config.js') });

/** The rules that fire when `text` is linted as if it were the file at `path`. */
async function rulesFor(path: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: path });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

const cases: [path: string, source: string, rules: string[]][] = [
  ['service/x.ts', "import type { Context } from 'koa';\nexport type C = Context;\n", ['no-restricted-imports']],
  ['cli/x.ts', "import Router from '@koa/router';\nexport const r = Router;\n", ['no-restricted-imports']],
  ['server/x.ts', "import type { Context } from 'koa';\nexport type C = Context;\n", []],
  ['kernel/x.ts', "export const m = await import('../plugins/text/index.js');\n", ['import-x/no-restricted-paths']],
  ['kernel/x.ts', "export { services } from '../service/services.js';\n", ['import-x/no-restricted-paths']],
  ['plugins/text/x.ts', "export { settingOf } from '../../service/settings.js';\n", ['import-x/no-restricted-paths']],
  ['plugins/text/x.ts', "export { fuse } from '../../kernel/fusion.js';\n", ['import-x/no-restricted-paths']],
  ['plugins/text/x.ts', "export { default } from '../token/index.js';\n", ['import-x/no-restricted-paths']],
  ['plugins/text/x.ts', "export { fuse } from '../../kernel/index.js';\n", []],
  ['plugins/text/x.ts', "export { default } from './index.js';\n", []],
  ['wire/x.ts', "export { settingOf } from '../service/settings.js';\n", ['import-x/no-restricted-paths']],
  ['wire/x.ts', "export { fuse } from '../kernel/index.js';\n", []],
  ['service/x.ts', "export { createApp } from '../server/app.js';\n", ['import-x/no-restricted-paths']],
  ['cli/x.ts', "export { createApp } from '../server/app.js';\n", ['import-x/no-restricted-paths']],
  ['cli/x.ts', "export { serve } from '../server/serve.js';\n", []],
  ['test/x.test.ts', "export { createApp } from '../server/app.js';\nexport { settingOf } from '../service/settings.js';\n", []],
  // kernel/index.ts re-exports kernel/fusion.ts: fusion importing the index back closes a circle.
  ['kernel/fusion.ts', "import { fuse } from './index.js';\nexport const f = fuse;\n", ['import-x/no-cycle']],
];

for (const [path, source, rules] of cases) {
  test(`${path}: ${source.split('\n')[0]} → ${rules.length ? rules.join(', ') : 'allowed'}`, async () => {
    assert.deepEqual(await rulesFor(path, source), rules);
  });
}
