/**
 * The per-post SEO data (seo-rollback-assistant-addons.md §1.2), registered
 * as post meta on cms/v2 posts and pages in the edit context. The real
 * product's `_yoast_wpseo_<name>` keys become `_seo_<name>` (CONVENTIONS.md
 * §1). Values are strings, as the real product stores them (scores are
 * digits, flags `'1'`). The scores and the reading time are computed on the
 * server (analysis.ts) and written back here; a client may still write them,
 * as in the real product, and the next analysis replaces them.
 */
import { sanitizeTextField, sanitizeUrl } from '@cms/rest'
import type { ContributionApi, MetaKey, Sanitized } from '@cms/core'

export const SEO = {
  focuskw: '_seo_focuskw',
  title: '_seo_title',
  metadesc: '_seo_metadesc',
  ogTitle: '_seo_opengraph-title',
  ogDescription: '_seo_opengraph-description',
  ogImage: '_seo_opengraph-image',
  ogImageId: '_seo_opengraph-image-id',
  twitterTitle: '_seo_twitter-title',
  twitterDescription: '_seo_twitter-description',
  twitterImage: '_seo_twitter-image',
  twitterImageId: '_seo_twitter-image-id',
  noindex: '_seo_meta-robots-noindex',
  nofollow: '_seo_meta-robots-nofollow',
  robotsAdv: '_seo_meta-robots-adv',
  canonical: '_seo_canonical',
  primaryCategory: '_seo_primary_category',
  cornerstone: '_seo_is_cornerstone',
  breadcrumbTitle: '_seo_bctitle',
  linkdex: '_seo_linkdex',
  contentScore: '_seo_content_score',
  inclusiveScore: '_seo_inclusive_language_score',
  readingTime: '_seo_estimated-reading-time-minutes'
} as const

const text = (value: unknown): Sanitized => ({ value: sanitizeTextField(value) })
const textarea = (value: unknown): Sanitized => ({ value: sanitizeTextField(value, true) })
const url = (value: unknown): Sanitized => ({ value: sanitizeUrl(value) })
const digits = (value: unknown, param: string): Sanitized =>
  typeof value === 'string' && /^\d{0,10}$/.test(value) ? { value } : { invalid: `${param} must be digits.` }

interface KeySpec { key: string, description: string, sanitize?: (value: unknown, param: string) => Sanitized, enum?: readonly string[] }

const KEYS: readonly KeySpec[] = [
  { key: SEO.focuskw, description: 'Focus keyphrase.', sanitize: text },
  { key: SEO.title, description: 'SEO title (may use variables such as %%title%%).', sanitize: text },
  { key: SEO.metadesc, description: 'Meta description.', sanitize: textarea },
  { key: SEO.ogTitle, description: 'Open Graph title.', sanitize: text },
  { key: SEO.ogDescription, description: 'Open Graph description.', sanitize: textarea },
  { key: SEO.ogImage, description: 'Open Graph image URL.', sanitize: url },
  { key: SEO.ogImageId, description: 'Open Graph image (media id).', sanitize: digits },
  { key: SEO.twitterTitle, description: 'Twitter card title.', sanitize: text },
  { key: SEO.twitterDescription, description: 'Twitter card description.', sanitize: textarea },
  { key: SEO.twitterImage, description: 'Twitter card image URL.', sanitize: url },
  { key: SEO.twitterImageId, description: 'Twitter card image (media id).', sanitize: digits },
  // '' and '0': the post type's default; '1': noindex; '2': index.
  { key: SEO.noindex, description: 'Robots noindex: 1 noindex, 2 index, empty or 0 the default.', enum: ['', '0', '1', '2'] },
  { key: SEO.nofollow, description: 'Robots nofollow: 1 nofollow.', enum: ['', '0', '1'] },
  { key: SEO.robotsAdv, description: 'Advanced robots directives (comma-separated: noimageindex, noarchive, nosnippet).', sanitize: text },
  { key: SEO.canonical, description: 'Canonical URL.', sanitize: url },
  { key: SEO.primaryCategory, description: 'Primary category (term id).', sanitize: digits },
  { key: SEO.cornerstone, description: 'Cornerstone content: 1.', enum: ['', '0', '1'] },
  { key: SEO.breadcrumbTitle, description: 'Breadcrumb title.', sanitize: text },
  { key: SEO.linkdex, description: 'SEO score, 0 to 100 (computed on the server).', sanitize: digits },
  { key: SEO.contentScore, description: 'Readability score, 0 to 100 (computed on the server).', sanitize: digits },
  { key: SEO.inclusiveScore, description: 'Inclusive-language score, 0 to 100 (computed on the server).', sanitize: digits },
  { key: SEO.readingTime, description: 'Estimated reading time in minutes (computed on the server).', sanitize: digits }
]

export function registerSeoMeta (api: ContributionApi): void {
  for (const spec of KEYS) {
    const schema: MetaKey = { type: 'string', default: '', description: spec.description, ...(spec.enum === undefined ? {} : { enum: spec.enum }), ...(spec.sanitize === undefined ? {} : { sanitize: spec.sanitize }) }
    api.registerMeta('post', spec.key, schema, { context: ['edit'] })
  }
}

/** A stored meta value as a string ('' when absent or not a string). */
export function metaString (meta: Record<string, unknown>, key: string): string {
  const v = meta[key]
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : ''
}

/** A stored score as a number, or null when absent or not digits. */
export function metaScore (meta: Record<string, unknown>, key: string): number | null {
  const v = metaString(meta, key)
  return /^\d{1,3}$/.test(v) ? Number(v) : null
}
