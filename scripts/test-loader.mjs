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
 * runs the sources through tsx. Run by hand (`node --import=<this file>
 * test/x.test.ts`), it refuses stale compiled code: build first.
 */
import { register } from 'node:module'
import { relative } from 'node:path'
import { root, stalePackages } from './dist-state.mjs'

// Compiled code older than its sources would be tested in their place: refused (a few milliseconds of stat calls).
const stale = stalePackages()
if (stale.length > 0) {
  throw new Error(`dist/ is older than the sources of ${stale.map((dir) => relative(root, dir)).join(', ')}: run node scripts/build-dist.mjs (scripts/test-run.mjs does)`)
}

process.setSourceMapsEnabled(true)
register('./test-hooks.mjs', import.meta.url)
