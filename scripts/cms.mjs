#!/usr/bin/env node
/**
 * The command line from its compiled JavaScript: `node scripts/cms.mjs <command>`
 * (what `pnpm cms` runs), rebuilt first when a source changed, as
 * scripts/start.mjs does for the service.
 */
import { ensureBuilt } from './dist-run.mjs'

await import(ensureBuilt('apps/cli/dist/main.js'))
