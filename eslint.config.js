// Lint: typescript-eslint's recommended rules, plus the house rule that floors point down.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The layers from the ground up; a layer may import those listed before it, never those after. */
const LAYERS = ['domain', 'contract', 'config', 'workflows', 'db', 'services', 'activities', 'temporal', 'web', 'api'];
/** What a layer must not import beyond the layers above it (workflows run in Temporal's sandbox). */
const EXTRA = {
  domain: ['fastify', '@mikro-orm/*', 'pg', '@temporalio/*'],
  contract: ['fastify', '@mikro-orm/*', 'pg', '@temporalio/*'],
  workflows: ['fastify', '@mikro-orm/*', 'pg', '@temporalio/client', '@temporalio/worker', '@temporalio/activity', 'node:*'],
};

const above = (layer) => LAYERS.slice(LAYERS.indexOf(layer) + 1).concat(['scripts', 'bench', 'test', 'examples']);
const layerRules = LAYERS.map((layer) => ({
  files: [`${layer}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^(\\.\\./)+(${above(layer).join('|')})/`,
            message: `${layer}/ is below that folder: floors point down (README, Architecture).`,
          },
          ...(EXTRA[layer] ? [{ group: EXTRA[layer], message: `${layer}/ stays free of this package (README, Architecture).` }] : []),
        ],
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', '.tools/', '.vitest/', 'workflow-bundle.js', 'sdk/dist/', 'plugin-kit/dist/', 'sdk/src/schema.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Plain JavaScript files (configs, CI scripts) run on Node; TypeScript gets its globals from @types/node.
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
  },
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      // Unused names are dead code; a leading underscore marks one kept on purpose (a destructured rest, a callback's shape).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Error-chain walkers and test probes read unknown shapes; `any` there is deliberate and local.
      '@typescript-eslint/no-explicit-any': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
      // `x == null` is the one loose comparison kept: it means null or undefined.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
    },
  },
  ...layerRules,
);
