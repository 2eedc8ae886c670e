import type { BrowserLauncher } from '@web/test-runner-core';
import type { Engine } from './engines.mjs';
export declare function engineLauncher(engine: Engine): BrowserLauncher;
