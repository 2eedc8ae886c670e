// `npm run lint` runs ESLint with this file (after tsc, before Prettier's check): the recommended rules of
// JavaScript and TypeScript everywhere, the type-aware ones where the shipped code lives, and the Lit and
// web-component rules on the elements. docs/contributing.md says why each choice.
import js from '@eslint/js';
import compat from 'eslint-plugin-compat';
import lit from 'eslint-plugin-lit';
import wc from 'eslint-plugin-wc';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import baseline from './scripts/eslint-baseline.mjs';

// The SDK and the sidecar get the type-aware rules, over a program of their files alone (tsconfig.lint.json:
// the whole project's, which tsc checks anyway, took ESLint a third longer); the simulator, a development
// tool built on Express (whose request bodies are `any` by design), the recommended ones.
const SHIPPED = ['src/**/*.ts', 'broker/src/**/*.ts'];
// What runs in a browser: everything in src/ but the token broker, which runs on the server.
const BROWSER = { files: ['src/**/*.ts'], ignores: ['src/broker/**'] };

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.cache/**', 'coverage/**', 'custom-elements.json', 'test/frameworks/*/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node, ...globals.mocha } },
    rules: {
      // An unused argument often names a callback's place in its signature; a leading _ says it is unused on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // A destructuring whose names are reassigned in part stays one let.
      'prefer-const': ['error', { destructuring: 'all' }],
      // Ids, header values and pasted settings are checked for control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    files: SHIPPED,
    extends: [tseslint.configs.recommendedTypeCheckedOnly],
    languageOptions: { parserOptions: { project: './tsconfig.lint.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      // An async method may have nothing to wait for yet keep its promise-returning contract (a TokenStore).
      '@typescript-eslint/require-await': 'off',
    },
  },
  { files: ['src/elements/**/*.ts'], ...lit.configs['flat/recommended'] },
  // Lit calls a template's @event listener with the element as `this`, so a method passed unbound is right there.
  { files: ['src/elements/**/*.ts'], rules: { '@typescript-eslint/unbound-method': 'off' } },
  // chai's property assertions (`expect(x).to.exist`) are expressions by design.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-unused-expressions': 'off' } },
  // Declaration files describe a module's shapes: a name declared only to be referenced as a type is their point.
  { files: ['**/*.d.ts'], rules: { '@typescript-eslint/no-unused-vars': 'off' } },
  { files: ['src/elements/**/*.ts'], ...wc.configs['flat/recommended'] },
  // The browser baseline (package.json `browserslist`, docs/elements.md "Browsers"): eslint-plugin-compat on
  // the web APIs its data knows, the ES built-ins too, and the baseline's own rules (scripts/eslint-baseline.mjs)
  // on what that data predates and on the styles' CSS.
  { ...BROWSER, ...compat.configs['flat/recommended'], settings: { lintAllEsApis: true } },
  { ...BROWSER, plugins: { baseline }, rules: { 'baseline/api': 'error', 'baseline/css': 'error' } },
);
