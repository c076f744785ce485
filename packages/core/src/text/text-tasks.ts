/**
 * The text work a request may cause, as plain functions of their input: the
 * HTML filters and the rendering. `text-pool.ts` runs them inline for small
 * inputs and in a worker thread (text-worker.mjs) for large ones, so each
 * export takes one structured-cloneable argument and answers a cloneable
 * value. A refusal is answered, not thrown (an error's class does not cross
 * threads): the pool turns it back into the same RestError either way.
 */
import { filterPostHtml, filterPostHtmlMany, filterTitleHtml } from './kses.js'
import { renderContent as render, renderExcerpt as excerpt, renderTitle as title } from './render.js'
import { renderCommentText } from './comment-text.js'
import { htmlLinks, htmlText } from './html-text.js'
import { sanitizeSlug } from './slugs.js'
import { filterJsonText } from './json-strings.js'
import { sameNormalized } from './whitespace.js'
import type { TextLimits } from '@cms/rest/json-scan'

/** A task's outcome: its value, or the 4xx it refused with. */
export type TaskOutcome<T> = { value: T } | { refused: { code: string, message: string, status: number, data: Record<string, unknown> } }

function outcome<T> (work: () => T): TaskOutcome<T> {
  try {
    return { value: work() }
  } catch (err) {
    // Recognised by shape: importing the kernel here would load it into every thread.
    const e = err as { code?: unknown, status?: unknown, message?: unknown, data?: unknown }
    if (typeof e?.code !== 'string' || typeof e.status !== 'number' || e.status < 400 || e.status >= 500) throw err
    return { refused: { code: e.code, message: String(e.message), status: e.status, data: { ...(e.data as Record<string, unknown>) } } }
  }
}

/** Which filter: post content and excerpts, or titles (and user meta). */
export type FilterKind = 'post' | 'title'

export function filterOne (input: { html: string, kind: FilterKind }): TaskOutcome<string> {
  return outcome(() => input.kind === 'post' ? filterPostHtml(input.html) : filterTitleHtml(input.html))
}

/**
 * A post's text filtered, with its UTF-8 bytes: what the database driver
 * sends for a text parameter, made here instead of on the request thread
 * (issue 27: encoding a 1.9 MB content there was one task of 20 ms).
 */
export function filterUtf8 (input: { html: string }): TaskOutcome<[text: string, utf8: Uint8Array]> {
  return outcome(() => {
    const text = filterPostHtml(input.html)
    return [text, Buffer.from(text, 'utf8')]
  })
}

/** Many texts at a cost per byte (the post filter joins them, see `filterPostHtmlMany`). */
export function filterMany (input: { texts: string[], kind: FilterKind }): TaskOutcome<string[]> {
  return outcome(() => input.kind === 'post' ? filterPostHtmlMany(input.texts) : input.texts.map(filterTitleHtml))
}

export function renderContent (input: { raw: string, smilies?: boolean }): TaskOutcome<string> {
  return outcome(() => render(input.raw, input.smilies ?? true))
}

export function renderExcerpt (input: { excerpt: string, content: string, length?: number, smilies?: boolean }): TaskOutcome<string> {
  return outcome(() => excerpt(input.excerpt, input.content, input.length, input.smilies ?? true))
}

export function renderTitle (input: { raw: string }): TaskOutcome<string> {
  return outcome(() => title(input.raw))
}

export function renderComment (input: { raw: string, smilies: boolean }): TaskOutcome<string> {
  return outcome(() => renderCommentText(input.raw, input.smilies))
}

export function textOf (input: { html: string }): TaskOutcome<string> {
  return outcome(() => htmlText(input.html))
}

export function linksOf (input: { html: string }): TaskOutcome<string[]> {
  return outcome(() => htmlLinks(input.html))
}

/**
 * The JSON of a long string: what a `jsonb` column stores for it (`JsonText`), made off the request thread, with its
 * UTF-8 bytes (what the database driver sends).
 */
export function jsonOf (input: { text: string }): TaskOutcome<[json: string, utf8: Uint8Array]> {
  return outcome(() => {
    const json = JSON.stringify(input.text)
    return [json, Buffer.from(json, 'utf8')]
  })
}

/** A text's UTF-8 bytes (a list of one, so that they are moved back, not copied): what the database driver sends. */
export function utf8Of (input: { text: string }): TaskOutcome<[utf8: Uint8Array]> {
  return outcome(() => [Buffer.from(input.text, 'utf8')])
}

/** Whether texts are the same with their whitespace normalised, pair by pair (revisions' and autosaves' rule). */
export function sameWhitespace (input: { texts: string[] }): TaskOutcome<boolean> {
  return outcome(() => sameNormalized(input.texts))
}

export function slugOf (input: { text: string, fallback: string }): TaskOutcome<string> {
  return outcome(() => sanitizeSlug(input.text, input.fallback))
}

/** The code of a JSON text refused by `filterJson` (text-pool.ts answers it as `{ invalid }`, never as an error). */
export const JSON_TEXT_REFUSED = 'cms_json_text_refused'

/**
 * Builder data carried as JSON text: scanned, parsed, its strings filtered and written back (json-strings.ts); with
 * the text a `jsonb` column stores for it (the JSON of that string), so the request thread writes neither.
 */
export function filterJson (input: { json: string, limits: TextLimits, urlKey: string, urlFlags: string }): TaskOutcome<[json: string, stored: string, storedUtf8: Uint8Array]> {
  return outcome(() => {
    const r = filterJsonText(input.json, input.limits, new RegExp(input.urlKey, input.urlFlags))
    if ('json' in r) {
      const stored = JSON.stringify(r.json)
      return [r.json, stored, Buffer.from(stored, 'utf8')]
    }
    throw Object.assign(new Error(r.invalid), { code: JSON_TEXT_REFUSED, status: 400, data: {} })
  })
}
