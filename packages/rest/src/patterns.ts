/**
 * Schema `pattern`s and `patternProperties`, matched like the core's
 * `#pattern#u` (unanchored, unicode) but by a linear-time engine (re2js):
 * no value, however long or crafted, makes a match backtrack. A pattern
 * re2js cannot compile (backreferences, lookaround) is refused when the
 * route is registered ({@link assertLinearPatterns}).
 */
import { RE2JS } from 're2js'
import { isPlainObject, phpToString } from './php.js'
import type { JsonSchema } from './schema.js'

const compiled = new Map<string, RE2JS | null>()

function compile (pattern: string): RE2JS | null {
  let re = compiled.get(pattern)
  if (re !== undefined) return re
  try {
    re = RE2JS.compile(pattern)
  } catch {
    re = null
  }
  // Patterns come from declarations; the bound only guards schemas built at run time.
  if (compiled.size > 500) compiled.clear()
  compiled.set(pattern, re)
  return re
}

/** rest_validate_json_schema_pattern(): a pattern that cannot be compiled matches nothing. */
export function matchesPattern (pattern: unknown, value: string): boolean {
  const re = compile(phpToString(pattern))
  return re !== null && re.test(value)
}

/** Throws, naming the pattern, if a schema (at any depth) holds a pattern re2js cannot compile. */
export function assertLinearPatterns (schema: unknown, where: string, depth = 0): void {
  if (depth > 64) return
  if (Array.isArray(schema)) {
    for (const s of schema) assertLinearPatterns(s, where, depth + 1)
    return
  }
  if (!isPlainObject(schema)) return
  const s = schema as JsonSchema
  if (typeof s.pattern === 'string') check(s.pattern, where)
  if (isPlainObject(s.patternProperties)) for (const p of Object.keys(s.patternProperties)) check(p, where)
  for (const [key, value] of Object.entries(s)) {
    if (key !== 'default' && key !== 'enum' && key !== 'const' && typeof value === 'object') assertLinearPatterns(value, where, depth + 1)
  }
}

function check (pattern: string, where: string): void {
  try {
    // Compiled once here, kept for the requests.
    compiled.set(pattern, RE2JS.compile(pattern))
  } catch (e) {
    throw new Error(`${where}: the pattern ${JSON.stringify(pattern)} cannot be matched in linear time (re2js: ${(e as Error).message})`)
  }
}
