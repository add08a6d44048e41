// Shared by the Node tests of the browser SDK's core.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const fixture = (name) => JSON.parse(readFileSync(join(ROOT, 'Tests', 'Fixtures', name), 'utf8'));
