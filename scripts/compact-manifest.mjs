#!/usr/bin/env node
// The last step of `npm run build`: custom-elements.json written again without indentation. The analyzer
// (`cem analyze`) indents it by two spaces, which is 40 % of its bytes and about 4 kB of the packed
// tarball (bench/budgets.json, "tarball"); its readers are editors and tools, which parse it.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const path = fileURLToPath(new URL('../custom-elements.json', import.meta.url));
writeFileSync(path, `${JSON.stringify(JSON.parse(readFileSync(path, 'utf8')))}\n`);
