/**
 * The oembed/1.0 namespace: `GET /oembed/1.0/embed` describes this site's
 * posts and pages for embedding; `GET /oembed/1.0/proxy` (for editors)
 * does the same and also resolves other sites' URLs through trusted
 * providers or discovery, caching those answers for a day.
 *
 * Settings, read when the namespace is built: `CMS_OUTBOUND_ALLOW` (the
 * outbound client's allow-list) and `CMS_OEMBED_PROVIDERS` (extra providers).
 */
import { Type } from '@sinclair/typebox'
import { can, defineNamespace, endpoint, everyone, Enum, Raw, route, Untyped, type NamespaceDecl, type RestRequest } from '@cms/rest'
import type { PlatformServices as Services } from '../platform/services.js'
import { cachedSiteOptions } from '../base/site-options.js'
import { outboundClientFromEnv } from '../platform/outbound/index.js'
import { cacheKey, readCache, writeCache } from './cache.js'
import { oembedErrors } from './errors.js'
import { hostOf, isLocalUrl, localEmbedData, type SiteInfo } from './local.js'
import { providersFromEnv } from './providers.js'
import { remoteEmbedData } from './remote.js'

import { oembedSerializer } from './xml.js'

/** oEmbed data (a JSON answer; `format=xml` gives the same as XML). A provider's answer may carry more or less. */
const OEMBED = Type.Object({
  version: Type.String(),
  type: Type.String({ description: 'rich, video, photo or link.' }),
  title: Type.Optional(Type.String()),
  provider_name: Type.Optional(Type.String()),
  provider_url: Type.Optional(Type.String()),
  author_name: Type.Optional(Type.String()),
  author_url: Type.Optional(Type.String()),
  width: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  height: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  html: Type.Optional(Type.String()),
  thumbnail_url: Type.Optional(Type.String()),
  thumbnail_width: Type.Optional(Type.Integer()),
  thumbnail_height: Type.Optional(Type.Integer())
}, { title: 'oembed' })

const urlArg = (): ReturnType<typeof Raw<string>> => Raw<string>({
  description: 'The URL of the resource for which to fetch oEmbed data.',
  type: 'string',
  format: 'uri'
})

/** PHP's absint(): leading digits of a string, sign dropped; anything else 0. */
export function absint (value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.abs(Math.trunc(value)) : 0
  if (typeof value === 'boolean') return value ? 1 : 0
  if (typeof value !== 'string') return Array.isArray(value) && value.length > 0 ? 1 : 0
  const s = value.trim()
  if (s !== '' && Number.isFinite(Number(s))) return Math.min(Math.abs(Math.trunc(Number(s))), Number.MAX_SAFE_INTEGER)
  const m = /^[+-]?\d+/.exec(s)
  return m === null ? 0 : Math.abs(parseInt(m[0], 10))
}

export function oembedNamespace (services: Services): NamespaceDecl {
  const { store } = services
  const siteOptions = cachedSiteOptions(store)
  const outbound = outboundClientFromEnv()
  const providers = providersFromEnv()

  async function siteInfo (req: RestRequest): Promise<SiteInfo> {
    const o = await siteOptions()
    const home = (o.home === '' ? req.baseUrl : String(o.home)).replace(/\/+$/, '')
    const hosts = [req.baseUrl, home, String(o.url)].map(hostOf).filter((h): h is string => h !== null)
    return { name: String(o.name), home, hosts: [...new Set(hosts)] }
  }

  const embed = route({
    path: '/embed',
    endpoints: [endpoint({
      methods: ['GET'],
      args: {
        url: urlArg(),
        format: Untyped<string>({ default: 'json' }),
        maxwidth: Untyped<unknown>({ default: 600 })
      },
      summary: 'oEmbed data of a post or page of this site',
      response: OEMBED,
      serialize: oembedSerializer,
      permission: everyone.because('§14 embed is public').probing({ query: { url: 'http://cms.test/?p=1' } }),
      handler: async (req) => {
        const data = await localEmbedData(req, req.params.url, absint(req.params.maxwidth), await siteInfo(req))
        if (data === null) throw oembedErrors.oembed_invalid_url()
        return data
      }
    })]
  })

  const proxy = route({
    path: '/proxy',
    endpoints: [endpoint({
      methods: ['GET'],
      // Limited as expensive (rate limits): each call may fetch an outside page.
      rateClass: 'expensive',
      args: {
        url: urlArg(),
        format: Enum(['json', 'xml'], { description: 'The oEmbed format to use.', default: 'json' }),
        maxwidth: Raw<number>({ description: 'The maximum width of the embed frame in pixels.', type: 'integer', default: 600 }),
        maxheight: Type.Optional(Raw<number>({ description: 'The maximum height of the embed frame in pixels.', type: 'integer' })),
        discover: Raw<boolean>({ description: 'Whether to perform an oEmbed discovery request for unsanctioned providers.', type: 'boolean', default: true })
      },
      summary: 'oEmbed data of any URL, through trusted providers or discovery',
      response: OEMBED,
      permission: can('edit_posts', { error: oembedErrors.rest_forbidden, why: '§14 proxy needs edit_posts', probe: { query: { url: 'http://cms.test/?p=1' } } }),
      handler: async (req) => {
        const { url, format, maxwidth, maxheight, discover } = req.params
        const site = await siteInfo(req)
        if (isLocalUrl(url, site)) {
          const data = await localEmbedData(req, url, maxwidth, site)
          if (data === null) throw oembedErrors.oembed_invalid_url()
          return data
        }
        const key = cacheKey({ url, format, maxwidth, maxheight, discover })
        const cached = await readCache(store, key)
        if (cached !== null) return cached
        const data = await remoteEmbedData(outbound, providers, { url, maxwidth, maxheight, discover })
        await writeCache(store, key, url, data)
        return data
      }
    })]
  })

  return defineNamespace('oembed/1.0', [embed, proxy])
}
