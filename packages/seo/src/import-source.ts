/**
 * The data another SEO plugin leaves behind, as the importers read it
 * (seo-rollback-assistant-addons.md §1.3 "import"): the source plugin is
 * named `seo-a` (CONVENTIONS.md §1; the real product's `aioseo`). A site
 * migrated from it keeps:
 *
 *   post meta `_seo_a_*`      per-post title, description, keyphrases (JSON), social fields, robots, canonical
 *   option `seo_a_options`    global settings: separator, home title and description, site representation,
 *                             the author, date and search archives (`searchAppearance.global` / `.archives`)
 *   option `seo_a_options_dynamic`  per post type, taxonomy and post-type archive (`searchAppearance.postTypes`...)
 *
 * The meta keys are registered (edit context) so the data is readable and
 * writable through cms/v2 as any migrated meta; the options are declared
 * loosely (the other plugin's shape, read defensively). Titles and
 * descriptions carry the other plugin's "smart tags" (`#post_title`),
 * replaced by this package's variables (`%%title%%`) on import.
 */
import { Type } from '@sinclair/typebox'
import { sanitizeTextField, sanitizeUrl } from '@cms/rest'
import type { PackageApi, PackageOption, Sanitized } from '@cms/core'

export const SOURCE = 'seo-a'

export const SOURCE_META = {
  title: '_seo_a_title',
  description: '_seo_a_description',
  keyphrases: '_seo_a_keyphrases',
  ogTitle: '_seo_a_og_title',
  ogDescription: '_seo_a_og_description',
  ogImage: '_seo_a_og_image_url',
  twitterTitle: '_seo_a_twitter_title',
  twitterDescription: '_seo_a_twitter_description',
  twitterImage: '_seo_a_twitter_image_url',
  canonical: '_seo_a_canonical_url',
  noindex: '_seo_a_robots_noindex',
  nofollow: '_seo_a_robots_nofollow'
} as const

const text = (value: unknown): Sanitized => ({ value: sanitizeTextField(value) })
const url = (value: unknown): Sanitized => ({ value: sanitizeUrl(value) })
const json = (value: unknown, param: string): Sanitized => {
  if (typeof value !== 'string' || value.length > 10_000) return { invalid: `${param} must be a JSON text of at most 10,000 characters.` }
  return { value }
}

const DESCRIPTIONS: Record<keyof typeof SOURCE_META, [string, (value: unknown, param: string) => Sanitized] | [string, undefined, readonly string[]]> = {
  title: ['Source SEO plugin: title (with its smart tags).', text],
  description: ['Source SEO plugin: meta description.', text],
  keyphrases: ['Source SEO plugin: keyphrases, JSON {"focus": {"keyphrase": "..."}}.', json],
  ogTitle: ['Source SEO plugin: Open Graph title.', text],
  ogDescription: ['Source SEO plugin: Open Graph description.', text],
  ogImage: ['Source SEO plugin: Open Graph image URL.', url],
  twitterTitle: ['Source SEO plugin: Twitter card title.', text],
  twitterDescription: ['Source SEO plugin: Twitter card description.', text],
  twitterImage: ['Source SEO plugin: Twitter card image URL.', url],
  canonical: ['Source SEO plugin: canonical URL.', url],
  noindex: ['Source SEO plugin: robots noindex (1).', undefined, ['', '0', '1']],
  nofollow: ['Source SEO plugin: robots nofollow (1).', undefined, ['', '0', '1']]
}

/** Registers the source plugin's post meta (edit context), so migrated values are readable and writable. */
export function registerSourceMeta (api: PackageApi): void {
  for (const [name, key] of Object.entries(SOURCE_META) as Array<[keyof typeof SOURCE_META, string]>) {
    const [description, sanitize, values] = DESCRIPTIONS[name]
    api.registerMeta('post', key, { type: 'string', default: '', description, ...(sanitize === undefined ? {} : { sanitize }), ...(values === undefined ? {} : { enum: values }) }, { context: ['edit'] })
  }
}

const LOOSE = Type.Object({}, { additionalProperties: true, maxProperties: 50 })

export interface SourceOptions {
  options: PackageOption<typeof LOOSE>
  dynamic: PackageOption<typeof LOOSE>
}

export function sourceOptions (api: PackageApi): SourceOptions {
  return {
    options: api.option('seo_a_options', LOOSE, { default: {}, description: 'The source SEO plugin\'s global settings, as a migrated site keeps them (read by import/seo-a/*).' }),
    dynamic: api.option('seo_a_options_dynamic', LOOSE, { default: {}, description: 'The source SEO plugin\'s per-type settings (post types, taxonomies, archives), read by import/seo-a/*.' })
  }
}

/** `obj.a.b.c` of an untyped value, or undefined at the first step that is not an object. */
export function at (value: unknown, ...path: string[]): unknown {
  let v = value
  for (const step of path) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, step)) return undefined
    v = (v as Record<string, unknown>)[step]
  }
  return v
}

// The other plugin's smart tags and this package's variables (templates.ts).
const TAGS: Readonly<Record<string, string>> = {
  post_title: '%%title%%',
  site_title: '%%sitename%%',
  tagline: '%%sitedesc%%',
  separator_sa: '%%sep%%',
  post_excerpt: '%%excerpt%%',
  post_excerpt_only: '%%excerpt_only%%',
  post_content: '%%excerpt%%',
  author_name: '%%name%%',
  author_first_name: '%%author_first_name%%',
  author_last_name: '%%author_last_name%%',
  taxonomy_title: '%%term_title%%',
  taxonomy_description: '%%term_description%%',
  categories: '%%category%%',
  category_title: '%%term_title%%',
  post_date: '%%date%%',
  archive_date: '%%date%%',
  archive_title: '%%archive_title%%',
  current_date: '%%currentdate%%',
  current_year: '%%currentyear%%',
  search_term: '%%searchphrase%%',
  page_number: '%%page%%',
  parent_title: '%%parent_title%%',
  permalink: '%%permalink%%',
  post_id: '%%id%%'
}

/**
 * Replaces the other plugin's smart tags (`#post_title`; longest name first,
 * so `#post_excerpt_only` is not read as `#post_excerpt`); unknown tags are
 * kept as written. Linear in the text.
 */
export function replaceSmartTags (value: string): string {
  return value.replace(/#([a-z_]{2,40})/g, (whole, name: string) => {
    for (let end = name.length; end >= 2; end--) {
      const tag = name.slice(0, end)
      if (Object.hasOwn(TAGS, tag)) return `${TAGS[tag]!}${name.slice(end)}`
    }
    return whole
  }).replace(/\s+/g, ' ').trim()
}

/** The focus keyphrase of the other plugin's keyphrases JSON; undefined when it holds none, null when it is not valid. */
export function focusKeyphrase (stored: string): string | undefined | null {
  if (stored.trim() === '') return undefined
  let parsed: unknown
  try { parsed = JSON.parse(stored) } catch { return null }
  const phrase = at(parsed, 'focus', 'keyphrase')
  if (phrase === undefined) return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? undefined : null
  return typeof phrase === 'string' ? phrase.trim() : null
}
