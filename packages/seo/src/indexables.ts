/**
 * Indexables (seo-rollback-assistant-addons.md §1.2): one row per post,
 * term, post-type archive and system page in `seo_indexables`, the SEO
 * projection the reads and the head work from. A post's row is rebuilt from
 * its meta whenever its lifecycle events arrive or its scores were
 * computed; the indexing routes (indexing.ts) build what existed before.
 * Mapping: `linkdex` becomes `primary_focus_keyword_score` only with a focus
 * keyphrase (else NULL); `content_score` becomes `readability_score` (0
 * when absent); `metadesc` the description, and so on.
 *
 * Internal links (`seo_links`): the links of a published post's content,
 * parsed with htmlparser2 (linear in the content), resolved to posts of this
 * site by their plain permalink (`?p=`, `?page_id=`) or their slug; the
 * post's `link_count` counts its internal links, `incoming_link_count` the
 * links from other posts to it.
 */
import { sql } from 'drizzle-orm'
import { getOptions, type Store } from '@cms/store'
import { permalink, textPool, type ContentReader, type PostWithDetails, type TermRow } from '@cms/core'
import { metaScore, metaString, SEO } from './meta.js'

/** Post types that have indexables (and archives: `post` only). */
export const INDEXABLE_TYPES = ['post', 'page']
/** Statuses the indexing walks (trashed posts keep a row only while their events say so). */
export const INDEXED_STATUSES = ['publish', 'future', 'draft', 'pending', 'private']
/** Indexable version: a row built by an older one is rebuilt. */
export const INDEXABLE_VERSION = 2

export type IndexableRow = Record<string, unknown> & { id: number, object_key: string }

/** The site's home URL (the stored one, else the site URL, else the request's). */
export async function homeUrl (store: Store, fallback = ''): Promise<string> {
  const o = await getOptions(store, ['home', 'url'])
  const home = String(o.home) !== '' ? String(o.home) : String(o.url) !== '' ? String(o.url) : fallback
  return home.replace(/\/+$/, '')
}

const bool = (v: string): boolean | null => v === '1' ? true : v === '2' ? false : null
const idOrNull = (v: string): number | null => /^\d{1,15}$/.test(v) ? Number(v) : null
const orNull = (v: string): string | null => v === '' ? null : v

/** The indexable of a post, as column values. */
export function postIndexable (found: PostWithDetails, home: string): Record<string, unknown> {
  const { post, meta } = found
  const keyword = metaString(meta, SEO.focuskw).trim()
  const readingTime = metaString(meta, SEO.readingTime)
  return {
    object_key: `post:${post.id}`,
    object_type: 'post',
    object_sub_type: post.type,
    object_id: post.id,
    permalink: permalink(home, post.type, post.id),
    title: orNull(metaString(meta, SEO.title)),
    description: orNull(metaString(meta, SEO.metadesc)),
    breadcrumb_title: post.title,
    primary_focus_keyword: orNull(keyword),
    primary_focus_keyword_score: keyword === '' ? null : metaScore(meta, SEO.linkdex),
    readability_score: metaScore(meta, SEO.contentScore) ?? 0,
    inclusive_language_score: metaScore(meta, SEO.inclusiveScore) ?? 0,
    estimated_reading_time_minutes: /^\d+$/.test(readingTime) ? Number(readingTime) : null,
    is_cornerstone: metaString(meta, SEO.cornerstone) === '1',
    is_robots_noindex: bool(metaString(meta, SEO.noindex)),
    is_robots_nofollow: metaString(meta, SEO.nofollow) === '1',
    canonical: orNull(metaString(meta, SEO.canonical)),
    open_graph_title: orNull(metaString(meta, SEO.ogTitle)),
    open_graph_description: orNull(metaString(meta, SEO.ogDescription)),
    open_graph_image: orNull(metaString(meta, SEO.ogImage)),
    open_graph_image_id: idOrNull(metaString(meta, SEO.ogImageId)),
    twitter_title: orNull(metaString(meta, SEO.twitterTitle)),
    twitter_description: orNull(metaString(meta, SEO.twitterDescription)),
    twitter_image: orNull(metaString(meta, SEO.twitterImage)),
    twitter_image_id: idOrNull(metaString(meta, SEO.twitterImageId)),
    post_status: post.status,
    is_public: post.status === 'publish' && post.password === '',
    is_protected: post.password !== '',
    author_id: post.author,
    post_parent: post.parent,
    term_ids: [...found.terms.category, ...found.terms.post_tag].map((t) => t.id),
    object_last_modified: post.modifiedGmt,
    object_published_at: post.dateGmt
  }
}

export function termIndexable (term: TermRow, home: string): Record<string, unknown> {
  return {
    object_key: `term:${term.id}`,
    object_type: 'term',
    object_sub_type: term.taxonomy,
    object_id: term.id,
    permalink: `${home}/?${term.taxonomy === 'category' ? 'cat' : 'tag'}=${term.taxonomy === 'category' ? term.id : term.slug}`,
    breadcrumb_title: term.name,
    description: orNull(term.description),
    is_public: true
  }
}

/** The system pages `general` builds: 404, search results, date archive, home page. */
export function systemIndexables (home: string): Array<Record<string, unknown>> {
  return [
    { object_key: 'system-page:404', object_type: 'system-page', object_sub_type: '404', is_robots_noindex: true, is_public: false },
    { object_key: 'system-page:search-result', object_type: 'system-page', object_sub_type: 'search-result', permalink: `${home}/?s=`, is_robots_noindex: true, is_public: false },
    { object_key: 'date-archive', object_type: 'date-archive', is_robots_noindex: true, is_public: false },
    { object_key: 'home-page', object_type: 'home-page', permalink: `${home}/`, is_public: true }
  ]
}

export function archiveIndexable (type: string, home: string): Record<string, unknown> {
  return { object_key: `post-type-archive:${type}`, object_type: 'post-type-archive', object_sub_type: type, permalink: `${home}/?post_type=${type}`, is_public: true }
}

const COLUMNS = ['object_key', 'object_type', 'object_sub_type', 'object_id', 'permalink', 'title', 'description', 'breadcrumb_title',
  'primary_focus_keyword', 'primary_focus_keyword_score', 'readability_score', 'inclusive_language_score', 'estimated_reading_time_minutes',
  'is_cornerstone', 'is_robots_noindex', 'is_robots_nofollow', 'canonical', 'open_graph_title', 'open_graph_description', 'open_graph_image',
  'open_graph_image_id', 'twitter_title', 'twitter_description', 'twitter_image', 'twitter_image_id', 'post_status', 'is_public',
  'is_protected', 'author_id', 'post_parent', 'term_ids', 'object_last_modified', 'object_published_at'] as const

const DEFAULTS: Record<string, unknown> = { readability_score: 0, inclusive_language_score: 0, is_cornerstone: false, is_robots_nofollow: false, is_protected: false }

/** Inserts or replaces indexables (by object key) in one statement; answers the stored rows. */
export async function upsertIndexables (store: Store, rows: ReadonlyArray<Record<string, unknown>>): Promise<IndexableRow[]> {
  if (rows.length === 0) return []
  const values = sql.join(rows.map((r) => sql`(${sql.join(COLUMNS.map((c) => {
    const v = r[c] ?? DEFAULTS[c] ?? null
    if (c === 'term_ids') return sql`${sql.param(Array.isArray(v) ? v : [])}::bigint[]`
    return v instanceof Date ? sql`${v.toISOString()}::timestamptz` : sql`${v}`
  }), sql`, `)}, ${INDEXABLE_VERSION})`), sql`, `)
  const cols = sql.raw([...COLUMNS, 'version'].map((c) => `"${c}"`).join(', '))
  const updates = sql.raw([...COLUMNS, 'version'].filter((c) => c !== 'object_key').map((c) => `"${c}" = excluded."${c}"`).join(', '))
  return await store.execute<IndexableRow>(sql`
    insert into seo_indexables (${cols}) values ${values}
    on conflict (object_key) do update set ${updates}, updated_at = now()
    returning *`)
}

export async function deleteIndexables (store: Store, keys: readonly string[]): Promise<void> {
  await store.execute(sql`delete from seo_indexables where object_key = any(${sql.param([...keys])}::text[])`)
}

/**
 * Parses a post's links, stores them (replacing the old ones), sets its
 * `link_count` and the `incoming_link_count` of every post it linked to
 * before or links to now.
 */
export async function indexLinks (store: Store, content: ContentReader, postId: number, html: string, home: string): Promise<void> {
  const host = hostOf(home)
  const links: Array<{ url: string, type: string, target: number | null }> = []
  const slugs = new Map<string, number[]>()
  // The core's `htmlLinks`, in its text pool: a post's content may be megabytes.
  for (const href of (await textPool.links(html)).slice(0, 1000)) {
    let url: URL
    try { url = new URL(href, `${home}/`) } catch { continue }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue
    if (url.host !== host) {
      links.push({ url: href, type: 'external', target: null })
      continue
    }
    const byId = url.searchParams.get('p') ?? url.searchParams.get('page_id')
    const i = links.push({ url: href, type: 'internal', target: byId !== null && /^\d{1,15}$/.test(byId) ? Number(byId) : null }) - 1
    const slug = url.pathname.split('/').filter((s) => s !== '').at(-1)
    if (byId === null && slug !== undefined) slugs.set(slug, [...(slugs.get(slug) ?? []), i])
  }
  if (slugs.size > 0) {
    const { posts } = await content.posts({ type: INDEXABLE_TYPES, status: ['publish'], slug: [...slugs.keys()].slice(0, 100), perPage: 100 })
    for (const p of posts) for (const i of slugs.get(p.slug) ?? []) links[i]!.target = p.id
  }
  await store.transaction(async (tx) => {
    const before = await tx.execute(sql`delete from seo_links where post_id = ${postId} returning target_post_id`)
    const old = (Array.isArray(before) ? before : (before as { rows: Array<{ target_post_id: unknown }> }).rows) as Array<{ target_post_id: unknown }>
    if (links.length > 0) {
      await tx.execute(sql`insert into seo_links (post_id, url, type, target_post_id) values ${sql.join(links.map((l) => sql`(${postId}, ${l.url}, ${l.type}, ${l.target})`), sql`, `)}`)
    }
    const targets = [...new Set([...old.map((r) => Number(r.target_post_id)).filter((n) => n > 0), ...links.map((l) => l.target ?? 0).filter((n) => n > 0)])]
    await tx.execute(sql`update seo_indexables set link_count = ${links.filter((l) => l.type === 'internal').length},
      incoming_link_count = (select count(*) from seo_links where target_post_id = ${postId}) where object_key = ${`post:${postId}`}`)
    if (targets.length > 0) {
      await tx.execute(sql`update seo_indexables i set incoming_link_count = (select count(*) from seo_links l where l.target_post_id = i.object_id)
        where i.object_type = 'post' and i.object_id = any(${sql.param(targets)}::bigint[])`)
    }
  })
}

function hostOf (home: string): string {
  try { return new URL(`${home}/`).host } catch { return '' }
}
