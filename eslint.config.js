// ESLint flat config: typescript-eslint's recommended rules over every package; Prettier owns layout.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', '.world/**', 'bench/results/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // Small modules: a source file over 400 lines is split along its seams. Tests,
    // their fixtures and helpers, and generated migrations are exempt: a table test is long
    // because its table is.
    files: ['**/*.{ts,js,mjs}'],
    ignores: ['**/test/**', '**/*.spec.ts', '**/*.*-spec.ts', '**/drizzle/**'],
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }] },
  },
  {
    // Tests read untyped JSON answers off the wire; `any` there is the honest type.
    files: ['**/test/**/*.ts', '**/*.spec.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
