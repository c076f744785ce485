/**
 * The outputs the documentation shows after a command (`# {"id":1,...}`),
 * checked against what the command printed. A shown output names what
 * matters and elides the rest, so it matches loosely:
 * - an object's keys shown must be there with matching values; keys not
 *   shown are not checked (`...` between keys says so to the reader);
 * - `[...]` is any array; another array matches element by element;
 * - `...` in a string is any text there: a prefix (`"whsec_..."`), or
 *   what a JSON string of HTML leaves out (`"<div ...><h3>Our breads</h3></div>"`);
 *   a date-time (`"2026-11-28T04:00:00"`) is any date-time: both change every run;
 * - a shown output may be a JSON string as well as an object or an array;
 * - anything else is equal.
 */

const ANY = '\u0000any'

/** The shown output as a value to match, or undefined when it is not JSON with elisions. */
export function parseShown (shown: string): unknown {
  const json = shown
    .replace(/\[\s*\.\.\.\s*\]/g, JSON.stringify(ANY))
    .replace(/\{\s*\.\.\.\s*\}/g, '{}')
    .replace(/,\s*\.\.\.\s*(?=[,}\]])/g, '')
    .replace(/([{[])\s*\.\.\.\s*,/g, '$1')
  try {
    return JSON.parse(json)
  } catch {
    return undefined
  }
}

const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d/

/** Where `actual` differs from `shown` (a path and what was found), or undefined when it matches. */
export function mismatch (shown: unknown, actual: unknown, path = '$'): string | undefined {
  if (shown === ANY) return undefined
  const found = (): string => `${path}: shown ${JSON.stringify(shown)}, got ${JSON.stringify(actual)?.slice(0, 200)}`
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual) || actual.length !== shown.length) return found()
    for (let i = 0; i < shown.length; i++) {
      const m = mismatch(shown[i], actual[i], `${path}[${i}]`)
      if (m !== undefined) return m
    }
    return undefined
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return found()
    for (const [k, v] of Object.entries(shown)) {
      if (!(k in actual)) return `${path}.${k}: shown, missing from the output`
      const m = mismatch(v, (actual as Record<string, unknown>)[k], `${path}.${k}`)
      if (m !== undefined) return m
    }
    return undefined
  }
  if (typeof shown === 'string' && typeof actual === 'string') {
    if (shown.includes('...')) {
      const parts = shown.split('...').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      return new RegExp(`^${parts.join('[\\s\\S]*')}$`).test(actual) ? undefined : found()
    }
    if (DATE_TIME.test(shown)) return DATE_TIME.test(actual) ? undefined : found()
  }
  return shown === actual ? undefined : found()
}

/**
 * Where a command's printed text differs from the text a ```console block
 * shows after it, or undefined when it matches. Line by line, blank lines
 * and trailing spaces (a header's `\r`) left out on both sides, spaces
 * matching any run of spaces and tabs (a tab-separated table is shown
 * aligned); a shown line `...` stands for any number of lines, `...` within
 * a line for any text (`ratelimit-reset: ...`: what changes every run).
 */
export function textMismatch (shown: readonly string[], printed: string): string | undefined {
  const lines = (text: string): string[] => text.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '')
  const want = lines(shown.join('\n'))
  const got = lines(printed.slice(0, 65_536))
  const literal = (part: string): string => part.split(/[ \t]+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[ \\t]+')
  const pattern = want.map((l) => l === '...' ? '(?:[^\\n]*\\n)*?' : `${l.split('...').map(literal).join('[^\\n]*')}\\n`).join('')
  if (new RegExp(`^${pattern}$`).test(got.map((l) => `${l}\n`).join(''))) return undefined
  return `shown ${JSON.stringify(want.join('\n'))}, got ${JSON.stringify(got.join('\n').slice(0, 500))}`
}
