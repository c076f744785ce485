/** Version strings compared part by part (`1.10.0` after `1.9.2`; numbers as numbers, other parts as text). */
export function compareVersions (a: string, b: string): number {
  const pa = a.split(/[.+-]/)
  const pb = b.split(/[.+-]/)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? ''
    const y = pb[i] ?? ''
    if (x === y) continue
    if (x === '') return -1
    if (y === '') return 1
    const nx = /^\d+$/.test(x) ? Number(x) : NaN
    const ny = /^\d+$/.test(y) ? Number(y) : NaN
    if (!Number.isNaN(nx) && !Number.isNaN(ny)) return nx < ny ? -1 : 1
    if (!Number.isNaN(nx)) return 1
    if (!Number.isNaN(ny)) return -1
    return x < y ? -1 : 1
  }
  return 0
}

/**
 * A version string as the source and manifests may write it; the pattern of
 * every route argument that names a version (it becomes part of a file name:
 * no slash, no backslash, no leading dot).
 */
export const VERSION_PATTERN = '^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$'
export const VERSION = new RegExp(VERSION_PATTERN)
/** A package slug: word characters and hyphens (the routes' pattern). */
export const SLUG = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,99}$/
