// The integration guide's page and worker snippets are the browser suite's own code: each ```js tested=NAME block of
// docs/integrations/web.md equals the region between `// guide:begin NAME` and `// guide:end` of the suite's files.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from './helpers.mjs';

const guide = readFileSync(join(ROOT, 'docs', 'integrations', 'web.md'), 'utf8');

for (const [name, file] of [['page', 'app.js'], ['worker', 'sw.js'], ['module-worker', 'module-sw.mjs']]) {
  test(`the guide's ${name} snippet is web/test/browser/${file}'s`, () => {
    const source = readFileSync(join(ROOT, 'web', 'test', 'browser', file), 'utf8');
    const region = source.split(`// guide:begin ${name}\n`)[1]?.split('// guide:end')[0];
    const block = guide.split(`\`\`\`js tested=${name}\n`)[1]?.split('```')[0];
    assert.ok(region && block, `${name}: region or guide block missing`);
    assert.equal(block, region);
  });
}
