/**
 * Temporary directories for tests (content directories, package sources):
 * each is removed when the test process exits, so runs leave nothing behind
 * in the OS temporary directory however the test that made it ends.
 */
import { rmSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []

/** A fresh directory under the OS temporary directory, named `cms-<prefix>-XXXXXX`. */
export async function scratchDir (prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `cms-${prefix}-`))
  // Synchronous: an `exit` listener cannot wait for a promise.
  if (made.length === 0) process.once('exit', () => { for (const d of made) rmSync(d, { recursive: true, force: true }) })
  made.push(dir)
  return dir
}
