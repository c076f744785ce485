/** What scripts/start.mjs and scripts/cms.mjs share: compile what changed, then run from dist/. */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { root, stalePackages } from './dist-state.mjs'

/** Compiles the stale packages (in a child process), then answers `entry`'s URL. */
export function ensureBuilt (entry) {
  if (stalePackages().length > 0) {
    // The build's one line goes to stderr: a CLI's standard output stays its own (--json).
    const built = spawnSync(process.execPath, [join(root, 'scripts', 'build-dist.mjs')], { stdio: ['ignore', 2, 2] })
    if (built.status !== 0) process.exit(built.status ?? 1)
  }
  return pathToFileURL(join(root, entry)).href
}
