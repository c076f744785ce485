/**
 * A route's path in each of its spellings: as declared (`/posts/{id}` with
 * `vars`, or the index's `(?P<id>[\d]+)`), as the index key, as Fastify's
 * path, and filled with a request's values.
 */
import { Type, type TSchema } from '@sinclair/typebox'

/** What a path is made of: `{name}` variables and each one's character class. */
export interface RoutePath { path: string, vars?: Record<string, string> }

/** `/a/(?P<id>[\d]+)` -> `/a/{id}` with `vars.id = '[\d]+'` (groups inside a class are kept). */
export function withPathVariables<R extends RoutePath> (decl: R): R {
  if (!decl.path.includes('(?P<')) return decl
  const vars: Record<string, string> = { ...decl.vars }
  let path = ''
  let i = 0
  while (i < decl.path.length) {
    const start = decl.path.indexOf('(?P<', i)
    if (start < 0) {
      path += decl.path.slice(i)
      break
    }
    path += decl.path.slice(i, start)
    const close = decl.path.indexOf('>', start)
    const name = decl.path.slice(start + 4, close)
    let depth = 1
    let j = close + 1
    for (; j < decl.path.length && depth > 0; j++) {
      const c = decl.path[j]
      if (c === '\\') j++
      else if (c === '(') depth++
      else if (c === ')') depth--
    }
    if (depth !== 0 || !/^\w+$/.test(name)) throw new Error(`route ${decl.path}: malformed variable`)
    vars[name] = decl.path.slice(close + 1, j - 1)
    path += `{${name}}`
    i = j
  }
  return { ...decl, path, vars }
}

/** A path variable no declaration describes: an integer for a digits class, else a string. */
export function pathVariableArg (cls: string): TSchema {
  return Type.Optional(Type.Unsafe({ type: /^(\[\\d\]|\\d|\[0-9\])\+$/.test(cls) ? 'integer' : 'string' }))
}

export function variablesOf (path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
}

/** `/cms/v2/posts/{id}` -> `/cms/v2/posts/(?P<id>[\d]+)`, the index key. */
export function patternOf (decl: RoutePath): string {
  return decl.path.replace(/\{(\w+)\}/g, (_, name: string) => `(?P<${name}>${decl.vars![name]})`)
}

/** The Fastify (find-my-way) path under the given prefix, with regex parameters. */
export function fastifyPathOf (decl: RoutePath, prefix: string): string {
  const path = decl.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    // find-my-way takes the class as a regex parameter; groups inside it
    // (`(?:[\d]+|me)`) work as they are.
    return `:${name}(^${decl.vars![name]}$)`
  })
  return prefix + (path === '/' ? '/' : path)
}

/**
 * The matched route's own path: its pattern with each variable replaced by
 * the request's value (`/cms/v2/posts/(?P<parent>[\d]+)/revisions` with
 * parent 12 is `/cms/v2/posts/12/revisions`). A handler builds its paging
 * links and `Location` headers from it, so no handler writes its path again,
 * and the links name the route as declared whatever spelling matched it
 * (case, trailing slash).
 */
export function routePathOf (pattern: string, params: Readonly<Record<string, unknown>>): string {
  let out = ''
  let i = 0
  for (;;) {
    const start = pattern.indexOf('(?P<', i)
    if (start === -1) return out + pattern.slice(i)
    const nameEnd = pattern.indexOf('>', start)
    const name = pattern.slice(start + 4, nameEnd)
    out += pattern.slice(i, start) + String(params[name] ?? '')
    i = groupEnd(pattern, start)
  }
}

/** The index just past the group opening at `start` (escapes and character classes skipped). */
function groupEnd (pattern: string, start: number): number {
  let depth = 0
  let inClass = false
  for (let j = start; j < pattern.length; j++) {
    const c = pattern[j]
    if (c === '\\') { j++; continue }
    if (inClass) { if (c === ']') inClass = false; continue }
    if (c === '[') inClass = true
    else if (c === '(') depth++
    else if (c === ')' && --depth === 0) return j + 1
  }
  return pattern.length
}
