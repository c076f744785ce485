/**
 * What to test, read from the running app (`targetsOf`, `@cms/core/testing`),
 * and how arguments name what they take.
 */
import type { JsonSchema } from '@cms/rest'
export { targetsOf, bodyArgs, fillPath, urlOf, sampleVar, type Target, type Addressing } from '@cms/core/testing'

/** Argument names and formats that take a URL, a path or a file name. */
export function argKind (name: string, schema: JsonSchema): 'url' | 'path' | null {
  const n = name.toLowerCase()
  if (schema.format === 'uri' || /(^|_)(url|uri|href|link|src)$/.test(n) || /^(url|uri)/.test(n)) return 'url'
  if (/(^|_)(path|file|filename|filepath|file_name|dir|directory|folder)$/.test(n) || n === 'files') return 'path'
  return null
}
