/**
 * The test command's loader (scripts/test-run.mjs runs every test file with
 * `node --import=<this file>`, in place of the `.taprc`'s `--import=tsx`):
 * the workspace's sources load compiled, from each package's dist/
 * (scripts/build-dist.mjs, run by test-run.mjs first, so dist/ is current),
 * and only the files that have no compiled form (the tests themselves, their
 * helpers and fixtures, bench/) are transpiled here, one file at a time,
 * kept in a cache in the temporary directory. Through tsx a test process
 * spent about 5 s of CPU before its first test, against 2.5 s this way (tsx's
 * hooks see every module, its resolver probes and its transform runs on each
 * source file); that was a third of the suite's work. A child a test starts
 * with `process.execArgv` runs the same way. `npx tap` in a package still
 * runs the sources through tsx.
 */
import { register } from 'node:module'

process.setSourceMapsEnabled(true)
register('./test-hooks.mjs', import.meta.url)
