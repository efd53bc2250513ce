import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * SQL text lives in packages/stores only (repositories and read models). A string or template literal
 * that reads as SQL anywhere else in product code fails lint. Tests and test helpers may seed and
 * inspect tables directly. Files still being moved are listed in scripts/sql-allowlist.txt.
 *
 * SQL: a statement's keywords in capitals, as the stores write them. SQL_ANY_CASE: a statement in any
 * case (`select ... from x`, `insert into x (`, `update x set y =`); it asks for the statement's shape,
 * so English prose ("select a mode", "truncate the text", "to analyze") does not trip it.
 */
const SQL_ANY_CASE = String.raw`\b(select\s+[\w*"'(][^;]*?\sfrom\s+[\w"]|insert\s+into\s+[\w".]+\s*(\(|values\b|select\b)|delete\s+from\s+[\w".]+\s*($|where\b|using\b|returning\b)|update\s+[\w".]+\s+set\s+[\w"]+\s*=|create\s+(unique\s+)?(table|index|extension)\b|alter\s+table\b|drop\s+(table|index)\b|truncate\s+table\b)`;
const SQL = String.raw`\b(SELECT\s+[\w*'(]|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET|CREATE\s+(UNIQUE\s+)?(TABLE|INDEX|EXTENSION)|ALTER\s+TABLE|DROP\s+(TABLE|INDEX)|TRUNCATE\s|ANALYZE\b|VACUUM\b|FOR\s+UPDATE)`;
const SQL_MESSAGE = 'SQL belongs in packages/stores (a repository or read model); call it from there';
const sqlAllowlist = readFileSync(new URL('./scripts/sql-allowlist.txt', import.meta.url), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));

export default tseslint.config(
  { ignores: ['**/node_modules/**', '.data/**', 'bench/results/**', '**/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', fetch: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', performance: 'readonly', Response: 'readonly', Request: 'readonly', Headers: 'readonly', URLSearchParams: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // The search console: plain ES modules run by the browser, as served.
    files: ['services/api/console/**/*.js'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', DOMParser: 'readonly', Node: 'readonly', localStorage: 'readonly' } },
  },
  {
    files: ['packages/**/*.ts'],
    ignores: ['packages/*/src/testing/**', '**/*.test.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'packages take configuration as arguments; read process.env in services only' }],
    },
  },
  {
    files: ['packages/*/src/**/*.ts', 'services/*/src/**/*.ts'],
    ignores: ['packages/stores/**', '**/*.test.ts', '**/testing/**', ...sqlAllowlist],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: `Literal[value=/${SQL}/]`, message: SQL_MESSAGE },
        { selector: `TemplateElement[value.raw=/${SQL}/]`, message: SQL_MESSAGE },
        { selector: `Literal[value=/${SQL_ANY_CASE}/i]:not([value=/${SQL}/])`, message: SQL_MESSAGE },
        { selector: `TemplateElement[value.raw=/${SQL_ANY_CASE}/i]:not([value.raw=/${SQL}/])`, message: SQL_MESSAGE },
      ],
    },
  },
);
