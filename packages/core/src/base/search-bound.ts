/**
 * The longest search string the lists take (posts, pages, media, revisions,
 * terms, users, `/search`, and the content reader packages use). A search
 * is matched with ILIKE in every searched column of every row, so its cost
 * grows with its length times the rows: a megabyte-long `search` held a
 * request for seconds and the embedded database's event loop with it
 * (issue #11). Real searches are words; the core sets no bound of its own
 * (its URL and request size limits do), so this one sits far above any
 * query typed or pasted, and is answered like a declared `maxLength`: 400
 * `rest_invalid_param`, detail `rest_too_long`. The contract declares no
 * `maxLength` for `search`, so discovery and OpenAPI do not show it.
 */
import { numberFormat } from '@cms/rest'
import { invalidParam } from '@cms/rest/errors'

export const MAX_SEARCH_LENGTH = 1000

/**
 * The bound as the message writes it ("1,000"), made once without `toLocaleString`: its first call builds ICU's
 * number format, 20-80 ms on the request thread (issue 27).
 */
const MAX_SEARCH_TEXT = numberFormat(MAX_SEARCH_LENGTH)

/** Throws 400 `rest_invalid_param` when `search` is longer than MAX_SEARCH_LENGTH characters. */
export function checkSearchLength (search: string | undefined, param = 'search'): void {
  // Code units first: a string of at most MAX code units has at most MAX characters.
  if (search === undefined || search.length <= MAX_SEARCH_LENGTH) return
  // And one of more than twice MAX code units has more than MAX characters (a character is one or two): refused
  // without reading it (a long string decoded in slices is a rope, which reading would copy whole).
  if (search.length > 2 * MAX_SEARCH_LENGTH) refuse(param)
  // Characters (code points), counted only as far as the bound: a surrogate pair is one.
  let characters = 0
  for (let i = 0; i < search.length && characters <= MAX_SEARCH_LENGTH; i++) {
    const c = search.charCodeAt(i)
    if (c < 0xd800 || c > 0xdbff || i + 1 === search.length) characters++
    else {
      const next = search.charCodeAt(i + 1)
      characters++
      if (next >= 0xdc00 && next <= 0xdfff) i++
    }
  }
  if (characters > MAX_SEARCH_LENGTH) refuse(param)
}

function refuse (param: string): never {
  const message = `${param} must be at most ${MAX_SEARCH_TEXT} characters long.`
  throw invalidParam(param, message, { code: 'rest_too_long', message, data: null })
}
