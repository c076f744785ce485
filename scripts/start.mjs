#!/usr/bin/env node
/**
 * Starts the service from its compiled JavaScript: `node scripts/start.mjs`
 * (what `pnpm start` runs). The packages whose sources changed since their
 * last build are compiled first, in a child process that ends before the
 * service starts (the TypeScript compiler never stays in the service's
 * memory); then this process becomes the service, so started directly with
 * `node` the process tree is the service alone. Under `pnpm start` pnpm
 * stays its parent (pnpm has no way to replace itself).
 */
import { ensureBuilt } from './dist-run.mjs'

await import(ensureBuilt('apps/gateway/dist/main.js'))
