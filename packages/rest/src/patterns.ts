/**
 * A schema `pattern`, compiled like the core's `#pattern#u` (unanchored, unicode).
 */
import { phpToString } from './php.js'

/** Compiles a schema `pattern` like the core's `#pattern#u` (unanchored, unicode). */
const patternCache = new Map<string, RegExp | null>()
function compilePattern (pattern: string): RegExp | null {
  if (patternCache.has(pattern)) return patternCache.get(pattern)!
  let re: RegExp | null = null
  try {
    re = new RegExp(pattern, 'u')
  } catch {
    try {
      re = new RegExp(pattern)
    } catch {
      re = null
    }
  }
  if (patternCache.size > 500) patternCache.clear()
  patternCache.set(pattern, re)
  return re
}

/** rest_validate_json_schema_pattern(). */
export function matchesPattern (pattern: unknown, value: string): boolean {
  const re = compilePattern(phpToString(pattern))
  return re !== null && re.test(value)
}
