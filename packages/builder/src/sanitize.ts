/**
 * What a writer without `unfiltered_html` may store in the builder's meta
 * (`_builder_data`, `_builder_page_settings`) and in the builder data the
 * package writes itself (templates): every string through the core's post
 * HTML filter, URL settings with a refused scheme (`javascript:`) emptied
 * (the core's json-strings.ts walks the value).
 */
import { filterJsonValue, MAX_JSON_DEPTH, textPool, type Sanitized } from '@cms/core'
import { DEFAULT_TEXT_LIMITS, type TextLimits } from '@cms/rest'

/** Keys of builder settings that hold a URL (link and media controls). */
const URL_KEY = /^(?:url|href|src|link)$|_url$/i

/** Nesting deeper than this is refused rather than walked (builder trees are a few levels deep). */
export const MAX_DEPTH = MAX_JSON_DEPTH

/**
 * A copy of a JSON value with every string filtered as the builder filters
 * its settings. The value is walked on the request thread a slice a turn
 * (it is already parsed: handing it to a thread would copy it there), its
 * strings with markup filtered together in the core's text pool.
 */
export async function filterStrings (root: unknown): Promise<Sanitized> {
  return await filterJsonValue(root, URL_KEY, async (texts) => await textPool.filterMany(texts))
}

/**
 * The sanitizer of builder data: JSON carried as a string; it must parse,
 * and its strings are filtered. Its nesting and strings are counted before
 * the parse against the deployment's text limits (`CMS_JSON_MAX_DEPTH`,
 * `CMS_TEXT_MAX_STRINGS`), as a request body is: the filter's work is
 * bounded before it starts. The scan, the parse, the filtering and the
 * JSON written back all run in the core's text pool (issue 27: on the
 * request thread they held it 20-60 ms for the largest data the limits allow),
 * and so does the text the `jsonb` column stores (`stored`, a `JsonText`).
 */
export function builderDataSanitizer (limits: TextLimits = DEFAULT_TEXT_LIMITS): (value: unknown, param: string) => Promise<Sanitized> {
  return async (value, param) => {
    if (typeof value !== 'string' || value === '') return { value }
    const r = await textPool.filterJsonText(value, limits, URL_KEY)
    // The column's text (the JSON of this JSON text) made there too: the store writes it as it is.
    return 'json' in r ? { value: r.json, stored: r.stored } : { invalid: `${param} ${r.invalid}` }
  }
}

/** Builder settings kept as an object: its strings are filtered the same way. */
export async function sanitizeBuilderObject (value: unknown, param: string): Promise<Sanitized> {
  const r = await filterStrings(value)
  return 'invalid' in r ? { invalid: `${param} is ${r.invalid}.` } : r
}
