#!/usr/bin/env node
/** Entry point: `pnpm cms <command>` (or `tsx src/main.ts <command>`). */
import { run } from './cli.js';

process.exitCode = await run(process.argv.slice(2));
