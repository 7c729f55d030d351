// ESLint over our TypeScript (`npm run lint:code`, and a check of `npm test`). The regexp plugin is here
// for one reason above all: a pattern that backtracks or moves super-linearly on text a visitor can
// send stalls the event loop for every tenant, so those two rules are errors everywhere. The console's
// React code also gets eslint-plugin-react-hooks' recommended rules: the rules of hooks, their
// dependencies, and the React Compiler's checks (state set during render, refs read in render, impure calls).
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'client/dist/', 'console/dist/', 'generated/', 'data/', 'bench/', 'test-artifacts/'] },
  { files: ['server/**/*.ts', 'client/**/*.ts', 'console/**/*.ts', 'console/**/*.tsx', 'scripts/**/*.ts', 'test/**/*.ts', 'tools/**/*.ts'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  regexp.configs['flat/recommended'],
  { ...reactHooks.configs.flat.recommended, files: ['console/**/*.ts', 'console/**/*.tsx'] },
  // The consumer app of the client package's test: plain JavaScript run by Node.js.
  { files: ['**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  {
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
      // A leading underscore names a parameter or element that must be there but is not used.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // With noUncheckedIndexedAccess, `!` is how the code says "present by construction" (a row just
      // inserted, a key of the table being walked); banning it would trade each for an unreachable branch.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Style, not correctness: left as written for now.
      'regexp/prefer-d': 'off',
      'regexp/prefer-w': 'off',
      'regexp/use-ignore-case': 'off',
      'regexp/prefer-predefined-assertion': 'off',
      'regexp/no-unused-capturing-group': 'off',
      'preserve-caught-error': 'off',
    },
  },
  // Tests wait on events (waitFor, the outbox's drained(), a reply), and where time itself is the
  // subject, through sleep() in test/support/wait.ts, which counts every fixed wait for `npm test`'s
  // report. A timer that is not a wait (a deadline raced and cleared, a probe's pace) says so beside
  // an eslint-disable comment.
  {
    files: ['test/**/*.ts'],
    ignores: ['test/support/wait.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='setTimeout'], CallExpression[callee.property.name='setTimeout']",
          message: 'Wait on an event (waitFor, worker.drained()) or, where time is the subject, sleep() from test/support/wait.ts, which is counted.',
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'node:timers/promises', message: 'Fixed waits go through sleep() in test/support/wait.ts, which is counted.' },
            { name: 'timers/promises', message: 'Fixed waits go through sleep() in test/support/wait.ts, which is counted.' },
          ],
        },
      ],
    },
  },
);
