#!/usr/bin/env node
// `npm start`: the demo. Until the demo lands (issue 5) this says so and exits non-zero, never silently.
console.error('bioid-sdk: the demo is not built yet (see issue 5). `npm test` runs the test suite.');
process.exit(1);
