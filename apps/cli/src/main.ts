#!/usr/bin/env node
/** Entry point: `pnpm cms <command>` (or `tsx src/main.ts <command>`). */
import { loadEnvFile } from '@cms/store'
import { run } from './cli.js'

// The service's settings, .env included (the environment wins over the file).
try {
  loadEnvFile()
  process.exitCode = await run(process.argv.slice(2))
} catch (err) {
  process.stderr.write(`cms: ${(err as Error).message}\n`)
  process.exitCode = 1
}
