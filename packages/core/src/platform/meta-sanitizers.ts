/**
 * Sanitizers of registered meta: what a writer without `unfiltered_html`
 * may store in a key. Each meta declaration names its own (meta.ts), so the
 * rule moves with the declaration; a package writes its keys' sanitizers
 * itself with the filters exported here (`filterPostHtml`, `allowedUrl`).
 */
import type { JsonText } from '@cms/store/columns'
import { textPool } from '../text/text-pool.js'

/**
 * The value to store, or why it is refused (a 400 naming `meta.<key>`).
 * `stored`: the value's JSON text when a worker thread made it (builder
 * data), written to the column as it is (issue 27).
 */
export type Sanitized = { value: unknown, stored?: JsonText } | { invalid: string }

/** The core's `sanitize_key()`: lower case, letters, digits, `_` and `-`. */
function sanitizeKey (key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9_-]/g, '')
}

/**
 * Footnotes (a JSON list of `{id, content}`), as the core filters them:
 * each content through the post kses rules, ids through `sanitize_key`,
 * entries without both dropped; anything but a JSON list is stored empty.
 * The contents are filtered together in the text pool (a cost per byte).
 */
export async function sanitizeFootnotes (value: unknown): Promise<Sanitized> {
  if (typeof value !== 'string' || value === '') return { value }
  let list: unknown
  try { list = JSON.parse(value) } catch { return { value: '' } }
  if (!Array.isArray(list)) return { value: '' }
  const out: Array<{ id: string, content: string }> = []
  for (const note of list) {
    if (typeof note !== 'object' || note === null) continue
    const { id, content } = note as { id?: unknown, content?: unknown }
    if (typeof id !== 'string' || id === '' || typeof content !== 'string' || content === '') continue
    out.push({ id: sanitizeKey(id), content })
  }
  const contents = await textPool.filterMany(out.map((note) => note.content))
  contents.forEach((content, i) => { out[i]!.content = content })
  return { value: JSON.stringify(out) }
}
