// ESLint (flat config) for the page and the scripts around it: npm test runs it (scripts/check.sh).
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['dist/', 'target/', 'node_modules/', 'www/pkg/', 'www/pkg-full/', 'public/', 'fuzz/', 'test-output/'] },
  js.configs.recommended,
  {
    files: ['www/**/*.js'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.browser } },
  },
  {
    files: ['www/worker.js'],
    languageOptions: { globals: { ...globals.worker } },
  },
  {
    files: ['**/*.mjs', 'vite.config.js', 'eslint.config.js'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node } },
  },
  {
    // Code passed to page.evaluate / waitForFunction runs in the page.
    files: ['tests/browser/**/*.mjs', 'scripts/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    rules: {
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      eqeqeq: ['error', 'always'],
      'no-var': 'error',
      'prefer-const': 'error',
      'no-shadow': 'off',
    },
  },
];
