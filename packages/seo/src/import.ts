/**
 * POST /seo/v1/import/{plugin}/{type} (seo-rollback-assistant-addons.md
 * §1.3): imports another SEO plugin's per-post data found in the store's
 * post meta, a batch of 25 posts a call, through a declared key mapping
 * (IMPORTERS). Answers `{objects, next_url}`: the posts imported with the
 * keys written, and the route path to call again (false when the batch was
 * not full). A post's existing SEO values are kept (only empty ones are
 * filled). The notes' other importer types exist in the real product for
 * settings this service does not hold: with no data of the plugin in the
 * store they answer `404 rest_no_route` ("Requested importer not found"),
 * as the real product does for a disabled importer; a plugin or type no
 * importer knows is a 400. Permission: `activate_plugins`.
 */
import { Type } from '@sinclair/typebox'
import { can, endpoint, route, type RouteDecl } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import { seoErrors } from './errors.js'
import { INDEXABLE_TYPES, INDEXED_STATUSES } from './indexables.js'
import { SEO } from './meta.js'

const NS = 'seo/v1'
const BATCH = 25

// Maps: the plugin and type come from the path (`constructor` must be unknown, not Object's).
/** The other plugin's post meta key -> ours, per supported plugin. */
const POST_MAPPINGS = new Map<string, Record<string, string>>([['aioseo', {
  _aioseo_title: SEO.title,
  _aioseo_description: SEO.metadesc,
  _aioseo_keyphrase: SEO.focuskw,
  _aioseo_og_title: SEO.ogTitle,
  _aioseo_og_description: SEO.ogDescription,
  _aioseo_twitter_title: SEO.twitterTitle,
  _aioseo_twitter_description: SEO.twitterDescription,
  _aioseo_canonical_url: SEO.canonical
}]])

/** Importer types per plugin (notes §1.3); only `posts` has data here. */
const IMPORTERS = new Map<string, readonly string[]>([
  ['aioseo', ['posts', 'general_settings', 'posttype_default_settings', 'taxonomy_settings', 'default_archive_settings', 'custom_archive_settings', 'validate_data', 'cleanup']],
  ['conflicting-plugins', ['deactivation']]
])

export function importRoutes (api: PackageApi): RouteDecl[] {
  // Where each importer stands: the last post id it imported.
  const cursors = api.option('seo_import_cursors', Type.Record(Type.String(), Type.Integer({ minimum: 0 })), { default: {}, description: 'The last post id each SEO importer handled.' })
  return [route({
    namespace: NS,
    path: `/${NS}/import/{plugin}/{type}`,
    vars: { plugin: '[\\w-]+', type: '[\\w-]+' },
    endpoints: [endpoint({
      methods: ['POST'],
      args: {},
      summary: 'Import the next batch of another SEO plugin\'s data',
      response: Type.Object({
        objects: Type.Array(Type.Unknown(), { description: 'What this batch imported.' }),
        next_url: Type.Union([Type.String(), Type.Literal(false)], { description: 'The route again while more is due, else false.' })
      }),
      permission: can('activate_plugins', { error: seoErrors.rest_forbidden, why: '§1.3 import: activate_plugins (administrators)', probe: { vars: { plugin: 'aioseo', type: 'posts' } } }),
      handler: async (req) => {
        const plugin = String(req.params.plugin)
        const type = String(req.params.type)
        if (IMPORTERS.get(plugin)?.includes(type) !== true) throw seoErrors.seo_unknown_importer()
        const mapping = type === 'posts' ? POST_MAPPINGS.get(plugin) : undefined
        if (mapping === undefined) throw seoErrors.rest_no_route()
        const keys = Object.keys(mapping)
        // The posts carrying any of the plugin's keys, in id order after the last one imported.
        const cursorName = `${plugin}/${type}`
        const stored = await cursors.get()
        const after = Object.hasOwn(stored, cursorName) ? stored[cursorName]! : 0
        const ids = new Set<number>()
        for (const key of keys) {
          const { posts } = await api.content.posts({ type: INDEXABLE_TYPES, status: INDEXED_STATUSES, meta: [{ key }], orderby: 'id', order: 'asc', perPage: BATCH, idAfter: after })
          for (const p of posts) ids.add(p.id)
        }
        if (ids.size === 0 && after === 0) throw seoErrors.rest_no_route()
        const batch = [...ids].sort((a, b) => a - b).slice(0, BATCH)
        const objects: Array<{ id: number, imported: string[] }> = []
        const changes: Array<{ id: number, set: Record<string, unknown> }> = []
        for (const id of batch) {
          const found = await api.content.post(id)
          if (found === undefined) continue
          const set: Record<string, unknown> = {}
          for (const [from, to] of Object.entries(mapping)) {
            const value = found.meta[from]
            const mine = found.meta[to]
            if (typeof value === 'string' && value.trim() !== '' && (typeof mine !== 'string' || mine === '')) set[to] = value.trim().slice(0, 10_000)
          }
          if (Object.keys(set).length > 0) {
            changes.push({ id, set })
            objects.push({ id, imported: Object.keys(set) })
          }
        }
        // Values another plugin stored are user data: the same cleaning as a writer without unfiltered_html.
        for (const change of changes) {
          for (const [key, value] of Object.entries(change.set)) {
            const spec = api.services.meta.get(key)
            const clean = await spec?.sanitize?.(value, `meta.${key}`)
            if (clean !== undefined) {
              if ('invalid' in clean) delete change.set[key]
              else change.set[key] = clean.value
            }
          }
        }
        await api.content.updateMetas(changes)
        const last = batch.at(-1)
        if (last !== undefined) {
          await cursors.set({ ...(await cursors.get()), [cursorName]: last })
        }
        return { objects, next_url: batch.length >= BATCH ? `${NS}/import/${plugin}/${type}` : false }
      }
    })]
  })]
}
