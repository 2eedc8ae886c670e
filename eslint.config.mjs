// `npm run lint` runs ESLint with this file (after tsc, before Prettier's check): the recommended rules of
// JavaScript and TypeScript everywhere, the type-aware ones where the shipped code lives, and the Lit and
// web-component rules on the elements. docs/development.md says why each choice.
import js from '@eslint/js';
import lit from 'eslint-plugin-lit';
import wc from 'eslint-plugin-wc';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const SHIPPED = ['src/**/*.ts', 'broker/src/**/*.ts', 'simulator/src/**/*.ts'];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.cache/**', 'coverage/**', 'custom-elements.json', 'test/frameworks/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node, ...globals.mocha } },
    rules: {
      // An unused argument often names a callback's place in its signature; a leading _ says it is unused on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: SHIPPED,
    extends: [tseslint.configs.recommendedTypeCheckedOnly],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
  { files: ['src/elements/**/*.ts'], ...lit.configs['flat/recommended'] },
  { files: ['src/elements/**/*.ts'], ...wc.configs['flat/recommended'] },
);
