/**
 * POST /seo/v1/import/{plugin}/{type} (seo-rollback-assistant-addons.md
 * §1.3): imports what another SEO plugin left on a migrated site
 * (import-source.ts: plugin `seo-a`), one type at a time, called again while
 * `next_url` (a route path, no host) is not false; it is false once a call
 * found nothing left to do. Types:
 *
 *   posts                      per-post meta, 25 posts a call after a stored cursor; a value already set here is kept
 *   general_settings           separator, home title and description, site representation, social profiles
 *   posttype_default_settings  title, description and noindex templates per post type
 *   taxonomy_settings          the same per taxonomy
 *   default_archive_settings   the author, date and search archives
 *   custom_archive_settings    the post-type archives
 *   validate_data              checks the source data's shape (400 seo_error_validation naming what is wrong)
 *   cleanup                    removes the source plugin's meta and settings once the site is fine
 *
 * and `conflicting-plugins/deactivation`, which deactivates the other SEO
 * plugins active on the site through the package registry where the
 * deployment has one (it is not a dependency: a composition without it has
 * no activation to change), and answers them; without the registry it names
 * those installed under the content directory.
 *
 * A settings type runs once (its work is bounded: at most 100 types a
 * call) and is then done: called again it answers `{objects: [],
 * next_url: false}`. Every call's writes share one transaction with the
 * cursor or the done mark, so a call is all or nothing and a re-run
 * repeats nothing. A plugin or type no importer knows, or whose source data
 * is absent, is `404 rest_no_route` ("Requested importer not found").
 * Permission: `activate_plugins`.
 */
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { can, endpoint, route, type RelativeRouteDecl } from '@cms/rest'
import { findUserById, type PackageApi } from '@cms/core'
import { packageRegistry } from '@cms/registry'
import { webUrl } from './configuration.js'
import { seoErrors } from './errors.js'
import { rebuild } from './freshness.js'
import type { HeadOptions } from './head.js'
import { at, focusKeyphrase, replaceSmartTags, SOURCE, SOURCE_META, type SourceOptions } from './import-source.js'
import { INDEXABLE_TYPES, INDEXED_STATUSES } from './indexables.js'
import { SEO } from './meta.js'

const NS = 'seo/v1'
const BATCH = 25
/** Post types, taxonomies and archives one settings call reads at most. */
const MAX_TYPES = 100
const SLUG = /^[a-z0-9_-]{1,32}$/

/** The SEO plugins that conflict with this one, by their neutral slugs. */
export const CONFLICTING_PLUGINS = [SOURCE, 'seo-b', 'seo-c'] as const

const SETTINGS_TYPES = ['general_settings', 'posttype_default_settings', 'taxonomy_settings', 'default_archive_settings', 'custom_archive_settings'] as const
type SettingsType = typeof SETTINGS_TYPES[number]

// Maps: the plugin and type come from the path (`constructor` must be unknown, not Object's).
const IMPORTERS = new Map<string, readonly string[]>([
  [SOURCE, ['posts', ...SETTINGS_TYPES, 'validate_data', 'cleanup']],
  ['conflicting-plugins', ['deactivation']]
])

/** Source text (smart tags replaced) -> this package's meta key, for the posts importer. */
const TEXTS: ReadonlyArray<[string, string]> = [
  [SOURCE_META.title, SEO.title], [SOURCE_META.description, SEO.metadesc],
  [SOURCE_META.ogTitle, SEO.ogTitle], [SOURCE_META.ogDescription, SEO.ogDescription],
  [SOURCE_META.twitterTitle, SEO.twitterTitle], [SOURCE_META.twitterDescription, SEO.twitterDescription]
]
const URLS: ReadonlyArray<[string, string]> = [[SOURCE_META.ogImage, SEO.ogImage], [SOURCE_META.twitterImage, SEO.twitterImage], [SOURCE_META.canonical, SEO.canonical]]
const FLAGS: ReadonlyArray<[string, string]> = [[SOURCE_META.noindex, SEO.noindex], [SOURCE_META.nofollow, SEO.nofollow]]

/** The other plugin's separators are often entities (`&#45;`, `&raquo;`). */
function decodeSeparator (value: string): string {
  const named: Record<string, string> = { ndash: '–', mdash: '—', raquo: '»', laquo: '«', gt: '>', lt: '<', middot: '·', bull: '•', amp: '&', tilde: '~', verbar: '|' }
  return value.replace(/&(#\d{1,6}|[a-z]{2,8});/g, (whole, e: string) => {
    if (e.startsWith('#')) {
      const code = Number(e.slice(1))
      return code > 31 && code < 0x110000 ? String.fromCodePoint(code) : whole
    }
    return named[e] ?? whole
  }).trim().slice(0, 10)
}

const str = (v: unknown): string | undefined => typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, 1000) : undefined

/** noindex of one of the other plugin's type settings: its own robots setting, else "not shown in search". */
function noindexOf (settings: unknown): '0' | '1' | undefined {
  if (at(settings, 'advanced', 'robotsMeta', 'default') === false) {
    const v = at(settings, 'advanced', 'robotsMeta', 'noindex')
    if (typeof v === 'boolean') return v ? '1' : '0'
  }
  const show = at(settings, 'show')
  return typeof show === 'boolean' ? (show ? '0' : '1') : undefined
}

/** The template keys one of the other plugin's type settings gives: `title-<key>`, `metadesc-<key>`, `noindex-<key>`. */
function templatesOf (settings: unknown, key: string, path: string, into: Record<string, string>, imported: string[]): void {
  const pairs: Array<[string, string | undefined]> = [
    [`title-${key}`, str(at(settings, 'title'))],
    [`metadesc-${key}`, str(at(settings, 'metaDescription'))]
  ]
  for (const [to, value] of pairs) {
    if (value === undefined) continue
    into[to] = replaceSmartTags(value)
    imported.push(`${path}/${to.startsWith('title') ? 'title' : 'metaDescription'}`)
  }
  const noindex = noindexOf(settings)
  if (noindex !== undefined) {
    into[`noindex-${key}`] = noindex
    imported.push(`${path}/noindex`)
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Up to MAX_TYPES entries of a map of the other plugin's per-type settings, with usable names, in name order. */
function entriesOf (value: unknown, names = SLUG): Array<[string, unknown]> {
  if (!isObject(value)) return []
  return Object.entries(value).filter(([k]) => names.test(k)).sort(([a], [b]) => a.localeCompare(b)).slice(0, MAX_TYPES)
}

export function importRoutes (api: PackageApi, head: HeadOptions, source: SourceOptions): RelativeRouteDecl[] {
  // Where each importer stands: the last post id (posts), 1 once done (the others).
  const cursors = api.option('seo_import_cursors', Type.Record(Type.String(), Type.Integer({ minimum: 0 })), { default: {}, description: 'The last post id each SEO importer handled (1: a settings importer is done).' })
  const store = api.services.store
  const sourceKeys = Object.values(SOURCE_META)

  /** Post ids carrying any source key after `after`, the first BATCH in id order (one bounded query per key). */
  const postsAfter = async (after: number, limit: number): Promise<number[]> => {
    const ids = new Set<number>()
    for (const key of sourceKeys) {
      const { posts } = await api.content.posts({ type: INDEXABLE_TYPES, status: INDEXED_STATUSES, meta: [{ key }], orderby: 'id', order: 'asc', perPage: limit, idAfter: after })
      for (const p of posts) ids.add(p.id)
    }
    return [...ids].sort((a, b) => a - b).slice(0, limit)
  }

  const hasSettings = async (type: SettingsType): Promise<boolean> => {
    const [options, dynamic] = [await source.options.get(), await source.dynamic.get()]
    switch (type) {
      case 'general_settings': return isObject(at(options, 'searchAppearance', 'global')) || isObject(at(options, 'social'))
      case 'default_archive_settings': return isObject(at(options, 'searchAppearance', 'archives'))
      case 'posttype_default_settings': return entriesOf(at(dynamic, 'searchAppearance', 'postTypes')).length > 0
      case 'taxonomy_settings': return entriesOf(at(dynamic, 'searchAppearance', 'taxonomies')).length > 0
      case 'custom_archive_settings': return entriesOf(at(dynamic, 'searchAppearance', 'archives')).length > 0
    }
  }
  const hasAnyData = async (): Promise<boolean> =>
    (await postsAfter(0, 1)).length > 0 || Object.keys(await source.options.get()).length > 0 || Object.keys(await source.dynamic.get()).length > 0

  const importPosts = async (name: string, after: number): Promise<Array<{ id: number, imported: string[], skipped?: string[] }>> => {
    const batch = await postsAfter(after, BATCH)
    if (batch.length === 0) return []
    const objects: Array<{ id: number, imported: string[], skipped?: string[] }> = []
    const changes: Array<{ id: number, set: Record<string, unknown> }> = []
    for (const found of await api.content.postsWithDetails(batch)) {
      const meta = found.meta
      const mine = (key: string): string => typeof meta[key] === 'string' ? meta[key] : ''
      const theirs = (key: string): string => typeof meta[key] === 'string' ? meta[key].trim() : ''
      const set: Record<string, unknown> = {}
      const skipped: string[] = []
      for (const [from, to] of TEXTS) if (theirs(from) !== '' && mine(to) === '') set[to] = replaceSmartTags(theirs(from)).slice(0, 10_000)
      for (const [from, to] of URLS) if (theirs(from) !== '' && mine(to) === '') set[to] = theirs(from)
      for (const [from, to] of FLAGS) if (theirs(from) === '1' && (mine(to) === '' || mine(to) === '0')) set[to] = '1'
      const focus = focusKeyphrase(theirs(SOURCE_META.keyphrases))
      if (focus === null) skipped.push(SOURCE_META.keyphrases)
      else if (focus !== undefined && focus !== '' && mine(SEO.focuskw) === '') set[SEO.focuskw] = focus
      // Values another plugin stored are user data: the same cleaning as a writer without unfiltered_html.
      for (const [key, value] of Object.entries(set)) {
        const clean = await api.services.meta.get(key)?.sanitize?.(value, `meta.${key}`)
        if (clean === undefined) continue
        if ('invalid' in clean) { delete set[key]; skipped.push(key) } else set[key] = clean.value
      }
      if (Object.keys(set).length > 0) changes.push({ id: found.post.id, set })
      if (Object.keys(set).length > 0 || skipped.length > 0) objects.push({ id: found.post.id, imported: Object.keys(set), ...(skipped.length > 0 ? { skipped } : {}) })
    }
    await api.content.updateMetas(changes)
    // The cursor after the meta: a call stopped between the two repeats nothing (set values are kept).
    await store.transaction(async (tx) => { await cursors.set({ ...(await cursors.get(tx)), [name]: batch.at(-1)! }, tx) })
    await rebuild(api, changes.map((c) => c.id))
    return objects
  }

  const importSettings = async (type: SettingsType, name: string): Promise<string[]> => {
    const [options, dynamic] = [await source.options.get(), await source.dynamic.get()]
    const templates: Record<string, string> = {}
    const imported: string[] = []
    let representation: Record<string, unknown> | undefined
    let social: Record<string, unknown> | undefined
    if (type === 'general_settings') {
      const global = at(options, 'searchAppearance', 'global')
      const sep = str(at(global, 'separator'))
      if (sep !== undefined && decodeSeparator(sep) !== '') { templates.separator = decodeSeparator(sep); imported.push('/searchAppearance/global/separator') }
      const homeTitle = str(at(global, 'siteTitle'))
      if (homeTitle !== undefined) { templates['title-home'] = replaceSmartTags(homeTitle); imported.push('/searchAppearance/global/siteTitle') }
      const homeDesc = str(at(global, 'metaDescription'))
      if (homeDesc !== undefined) { templates['metadesc-home'] = replaceSmartTags(homeDesc); imported.push('/searchAppearance/global/metaDescription') }
      const schema = at(global, 'schema')
      const represents = at(schema, 'siteRepresents')
      if (represents === 'organization' || represents === 'person') {
        const current = await head.representation.get()
        representation = { ...current, company_or_person: represents === 'organization' ? 'company' : 'person' }
        imported.push('/searchAppearance/global/schema/siteRepresents')
        const name = str(at(schema, 'organizationName'))
        if (name !== undefined) { representation.company_name = name.slice(0, 200); imported.push('/searchAppearance/global/schema/organizationName') }
        for (const [from, to] of [['organizationLogo', 'company_logo'], ['personLogo', 'person_logo']] as const) {
          const logo = webUrl(str(at(schema, from)) ?? '')
          if (logo !== undefined) { representation[to] = logo; imported.push(`/searchAppearance/global/schema/${from}`) }
        }
        const person = at(schema, 'person')
        if (typeof person === 'number' && Number.isSafeInteger(person) && person > 0 && await findUserById(store, person) !== undefined) {
          representation.person_user_id = person
          imported.push('/searchAppearance/global/schema/person')
        }
      }
      const urls = at(options, 'social', 'profiles', 'urls')
      if (typeof urls === 'object' && urls !== null) {
        const current = await head.social.get()
        social = { ...current }
        const a = webUrl(str(at(urls, 'facebookPageUrl')) ?? '')
        if (a !== undefined) { social.social_a_site = a; imported.push('/social/profiles/urls/facebookPageUrl') }
        const b = /^https?:\/\/(www\.)?(x|twitter)\.com\/@?([A-Za-z0-9_]{1,15})\/?$/i.exec(str(at(urls, 'twitterUrl')) ?? '')
        if (b !== null) { social.social_b_site = b[3]; imported.push('/social/profiles/urls/twitterUrl') }
        const others = entriesOf(urls, /^[A-Za-z0-9_]{1,40}$/).filter(([k]) => k !== 'facebookPageUrl' && k !== 'twitterUrl')
          .map(([k, v]) => [k, webUrl(str(v) ?? '')] as const).filter((e): e is readonly [string, string] => e[1] !== undefined)
        if (others.length > 0) {
          social.other_social_urls = [...new Set([...(current.other_social_urls), ...others.map(([, v]) => v)])].slice(0, 50)
          imported.push(...others.map(([k]) => `/social/profiles/urls/${k}`))
        }
      }
    } else if (type === 'default_archive_settings') {
      const archives = at(options, 'searchAppearance', 'archives')
      for (const [from, key] of [['author', 'author'], ['date', 'archive'], ['search', 'search']] as const) {
        const settings = at(archives, from)
        if (settings !== undefined) templatesOf(settings, key, `/searchAppearance/archives/${from}`, templates, imported)
      }
      delete templates['noindex-search']
    } else {
      const [group, prefix] = type === 'posttype_default_settings' ? ['postTypes', ''] : type === 'taxonomy_settings' ? ['taxonomies', 'tax-'] : ['archives', 'ptarchive-']
      for (const [slug, settings] of entriesOf(at(dynamic, 'searchAppearance', group))) {
        templatesOf(settings, `${prefix}${slug}`, `/searchAppearance/${group}/${slug}`, templates, imported)
      }
    }
    // The settings and the done mark in one transaction.
    await store.transaction(async (tx) => {
      if (Object.keys(templates).length > 0) await head.templates.set({ ...(await head.templates.get(tx)), ...templates }, tx)
      if (representation !== undefined) await head.representation.set(representation, tx)
      if (social !== undefined) await head.social.set(social, tx)
      await cursors.set({ ...(await cursors.get(tx)), [name]: 1 }, tx)
    })
    return imported
  }

  /** What is wrong with the source data's shape (empty: nothing). */
  const problems = async (): Promise<string[]> => {
    const out: string[] = []
    const [options, dynamic] = [await source.options.get(), await source.dynamic.get()]
    const objectOrAbsent = (v: unknown, path: string): void => {
      if (v !== undefined && !isObject(v)) out.push(`${path} is not an object`)
    }
    objectOrAbsent(at(options, 'searchAppearance'), 'seo_a_options.searchAppearance')
    objectOrAbsent(at(options, 'searchAppearance', 'global'), 'seo_a_options.searchAppearance.global')
    objectOrAbsent(at(options, 'searchAppearance', 'archives'), 'seo_a_options.searchAppearance.archives')
    for (const group of ['postTypes', 'taxonomies', 'archives']) {
      const v = at(dynamic, 'searchAppearance', group)
      objectOrAbsent(v, `seo_a_options_dynamic.searchAppearance.${group}`)
      for (const [slug, settings] of entriesOf(v)) objectOrAbsent(settings, `seo_a_options_dynamic.searchAppearance.${group}.${slug}`)
    }
    // The keyphrases of the next posts to import (bounded: one batch).
    const stored = await cursors.get()
    const next = await postsAfter(stored[`${SOURCE}/posts`] ?? 0, BATCH)
    for (const found of await api.content.postsWithDetails(next)) {
      const v = found.meta[SOURCE_META.keyphrases]
      if (typeof v === 'string' && focusKeyphrase(v) === null) out.push(`${SOURCE_META.keyphrases} of post ${found.post.id} is not the expected JSON`)
    }
    return out.slice(0, 20)
  }

  const cleanup = async (name: string): Promise<Record<string, number>> => {
    let removed = 0
    for (const key of sourceKeys) removed += await api.content.deleteMetaEverywhere(key)
    let settings = 0
    await store.transaction(async (tx) => {
      for (const option of [source.options, source.dynamic]) {
        if (Object.keys(await option.get(tx)).length > 0) settings++
        await option.reset(tx)
      }
      await cursors.set({ ...(await cursors.get(tx)), [name]: 1 }, tx)
    })
    return { metadata_cleanup: removed, settings_cleanup: settings }
  }

  const registryOf = api.optional(packageRegistry)
  /** The conflicting plugins installed under the content directory (with a registry: those active). */
  const conflicting = async (): Promise<string[]> => {
    const registry = registryOf()
    if (registry !== undefined) {
      const active = await registry.list({ type: 'plugin', status: ['active'] })
      return CONFLICTING_PLUGINS.filter((slug) => active.some((p) => p.slug === slug))
    }
    const dir = join(api.contentDir, 'plugins')
    const names = await readdir(dir).catch(() => [] as string[])
    const out: string[] = []
    for (const slug of CONFLICTING_PLUGINS) {
      if (names.includes(slug) && await stat(join(dir, slug, 'manifest.json')).then((s) => s.isFile(), () => false)) out.push(slug)
    }
    return out
  }

  return [route({
    path: '/import/{plugin}/{type}',
    vars: { plugin: '[\\w-]+', type: '[\\w-]+' },
    endpoints: [endpoint({
      methods: ['POST'],
      // Limited as expensive (rate limits): an import batch writes many rows.
      rateClass: 'expensive',
      args: {},
      summary: 'Import the next batch of another SEO plugin\'s data',
      response: Type.Object({
        objects: Type.Union([Type.Array(Type.Unknown()), Type.Record(Type.String(), Type.Unknown())], { description: 'What this batch imported (validate_data and cleanup: an object of counts or flags).' }),
        next_url: Type.Union([Type.String(), Type.Literal(false)], { description: 'The route again while more is due, else false.' })
      }),
      permission: can('activate_plugins', { error: seoErrors.rest_forbidden, why: '§1.3 import: activate_plugins (administrators)', probe: { vars: { plugin: SOURCE, type: 'posts' } } }),
      handler: async (req) => {
        const plugin = String(req.params.plugin)
        const type = String(req.params.type)
        if (IMPORTERS.get(plugin)?.includes(type) !== true) throw seoErrors.rest_no_route()
        const name = `${plugin}/${type}`
        const again = `${NS}/import/${plugin}/${type}`
        const answer = (objects: unknown[] | Record<string, unknown>): unknown =>
          ({ objects, next_url: (Array.isArray(objects) ? objects.length : Object.keys(objects).length) === 0 ? false : again })
        if (plugin === 'conflicting-plugins') {
          const found = await conflicting()
          if (found.length === 0) throw seoErrors.rest_no_route()
          const registry = registryOf()
          for (const slug of found) await registry?.deactivate('plugin', slug, { actor: { userId: req.user.id } })
          return { objects: found.map((slug) => ({ slug, type: 'plugin' })), next_url: false }
        }
        const stored = await cursors.get()
        const cursor = Object.hasOwn(stored, name) ? stored[name]! : 0
        if (type === 'posts') {
          if (cursor === 0 && (await postsAfter(0, 1)).length === 0) throw seoErrors.rest_no_route()
          return answer(await importPosts(name, cursor))
        }
        if (cursor > 0) return answer([])
        if ((SETTINGS_TYPES as readonly string[]).includes(type)) {
          if (!await hasSettings(type as SettingsType)) throw seoErrors.rest_no_route()
          return answer(await importSettings(type as SettingsType, name))
        }
        if (!await hasAnyData()) throw seoErrors.rest_no_route()
        if (type === 'validate_data') {
          const wrong = await problems()
          if (wrong.length > 0) throw seoErrors.seo_error_validation({ problems: wrong })
          await store.transaction(async (tx) => { await cursors.set({ ...(await cursors.get(tx)), [name]: 1 }, tx) })
          return answer({ validated: true })
        }
        return answer(await cleanup(name))
      }
    })]
  })]
}
