import { assert } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { version } from '../../src/index.js';

describe('the core in Node and during server-side rendering', () => {
  it('importing the core touches no window or document at import time', () => {
    const script = `
      for (const name of ['window', 'document', 'navigator', 'localStorage', 'sessionStorage', 'location']) {
        Object.defineProperty(globalThis, name, { configurable: true, get() { throw new Error('touched ' + name); } });
      }
      const core = await import('./src/index.ts');
      if (typeof core.BioID !== 'function') throw new Error('no BioID');
      console.log('ok');`;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.strictEqual(result.status, 0, result.stderr);
    assert.match(result.stdout, /ok/);
  });

  it('the exported version is the package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    assert.strictEqual(version, pkg.version);
  });
});
