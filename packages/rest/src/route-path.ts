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
