// One code style for every package: neostandard (Fastify's house style), with TypeScript.
import neostandard, { resolveIgnoresFromGitignore } from 'neostandard'

export default [
  ...neostandard({
    ts: true,
    ignores: [...resolveIgnoresFromGitignore(), '**/migrations/meta/**'],
  }),
  {
    rules: {
      // The wire speaks snake_case (per_page, rest_base...): destructured arguments keep their names.
      camelcase: ['error', { properties: 'never', ignoreDestructuring: true }],
      // Sanitizers and parsers match control characters on purpose.
      'no-control-regex': 'off',
      // `void promise` marks a promise deliberately not awaited.
      'no-void': ['error', { allowAsStatement: true }],
    },
  },
]
