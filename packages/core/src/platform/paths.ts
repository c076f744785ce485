/**
 * Paths that come from requests (a file under the content directory, a
 * template name...) resolved under their root, never outside it.
 */
import { lstat, realpath } from 'node:fs/promises'
import { isAbsolute, join, sep } from 'node:path'
import { kernelErrors, type RestError } from '@cms/rest'

function refused (why: string): RestError {
  return kernelErrors.rest_invalid_path(undefined, `The path is not allowed: ${why}.`)
}

/**
 * The real absolute path of `path` under `root`, or `400 rest_invalid_path`
 * when it contains NUL, is absolute, has a `..` segment, or passes through
 * a symbolic link that leads outside the root (or nowhere). Components that
 * do not exist yet are allowed (a file about to be written). `''` and `.`
 * are the root itself. Work is linear in the path's length.
 *
 * The check and the later use are two steps: a symlink planted between them
 * is not seen. Roots are the service's own directories, not shared with
 * untrusted local users.
 */
export async function resolveInside (root: string, path: string): Promise<string> {
  if (typeof path !== 'string') throw refused('not a string')
  if (path.includes('\0')) throw refused('it contains a NUL character')
  if (isAbsolute(path) || /^[a-zA-Z]:/.test(path) || path.startsWith('\\')) throw refused('it is absolute')
  const segments = path.split(/[/\\]+/).filter((s) => s !== '' && s !== '.')
  if (segments.includes('..')) throw refused('it climbs out with ".."')

  const realRoot = await realpath(root)
  const inside = (p: string): boolean => p === realRoot || p.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep)
  let current = realRoot
  for (let i = 0; i < segments.length; i++) {
    const next = join(current, segments[i]!)
    let stat
    try {
      stat = await lstat(next)
    } catch (err) {
      // The rest does not exist yet: plain names under a checked directory.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return join(current, ...segments.slice(i))
      throw err
    }
    if (stat.isSymbolicLink()) {
      let target: string
      try { target = await realpath(next) } catch { throw refused('it passes through a symbolic link that leads nowhere') }
      if (!inside(target)) throw refused('it passes through a symbolic link that leads outside its directory')
      current = target
    } else {
      current = next
    }
  }
  return current
}
