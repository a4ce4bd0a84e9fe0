import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/coverage/**',
      '.data/**',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Read time from the injected clock (docs/spec/style.md rule 10).',
        },
      ],
    },
  },
  {
    // A public operation's answer goes through respond(res, operation, status, body) of
    // @svc/service-kit, whose body type-checks against the operation's response schema (#33).
    files: ['services/*/src/entry-points/http/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Read time from the injected clock (docs/spec/style.md rule 10).',
        },
        {
          selector: "CallExpression[callee.property.name='json'][callee.object.name='res']",
          message:
            "Answer with respond(res, operation, status, body) (@svc/service-kit): the body is checked against the operation's response schema.",
        },
        {
          selector:
            "CallExpression[callee.property.name='json'][callee.object.callee.property.name=/^(status|set|type)$/]",
          message:
            "Answer with respond(res, operation, status, body) (@svc/service-kit): the body is checked against the operation's response schema.",
        },
      ],
    },
  },
  {
    files: ['**/test/**', 'test-e2e/**', 'test-faults/**', 'bench/**', 'packages/clock/src/**'],
    rules: {
      'no-restricted-syntax': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Response bodies in tests are read as loosely typed JSON.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
