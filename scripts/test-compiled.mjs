/**
 * Preloaded (`--import`) by scripts/test-run.mjs into a test file it runs
 * compiled (scripts/build-tests.mjs): a process with no module hooks. A
 * child such a test starts as it runs itself (`[...process.execArgv, file]`:
 * the CLI's or the service's `src/main.ts`, a fixture script) runs
 * TypeScript, so its options name the test loader in place of this file.
 */
import { fileURLToPath } from 'node:url'

const self = fileURLToPath(import.meta.url)
const loader = fileURLToPath(new URL('./test-loader.mjs', import.meta.url))
const at = process.execArgv.findIndex((arg) => arg === `--import=${self}` || arg === `--import=${import.meta.url}`)
if (at >= 0) process.execArgv.splice(at, 1, `--import=${loader}`)
