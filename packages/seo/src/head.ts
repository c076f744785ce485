/**
 * GET /seo/v1/get_head?url= (seo-rollback-assistant-addons.md §1.3): the
 * SEO head of any URL of this service, as the real product's headless
 * endpoint gives it: `{html, json, status}`, `html` being the tags a page
 * would carry and `json` the same data as keys (`og:title` is `og_title`).
 * Public; served while the option `seo_enable_headless_rest_endpoints` is
 * on (else `404 rest_no_route`, as an unregistered route; the check runs
 * after the argument check, so a malformed `url` is still a 400).
 *
 * The URL is only parsed, never fetched. It resolves against the links
 * cms/v2 gives (plain permalinks): the home URL, `?p=`, `?page_id=`,
 * `?cat=`, `?tag=`, `?author=`, `?s=`, `?m=` / `?year=&monthnum=&day=` and
 * `/YYYY/MM/DD/` date archives, `?post_type=` archives. Another host, an
 * unknown path, and anything an anonymous reader may not see (drafts,
 * private, trashed, future posts; authors without published posts; date
 * archives without posts) answer the 404 page's head with HTTP 404 (and,
 * as every error here, `code`, `message` and `data.status`:
 * `seo_head_not_found`). A password-protected post shows nothing taken
 * from its content.
 *
 * `postHead` builds the same object for one post of any status (the caller
 * decides who may see it): the `seo_head_json` field of cms/v2 posts and
 * pages uses it. Site-wide data is read once per request (`req.memo`), so a
 * list of 100 posts costs the post's own reads only.
 *
 * Templates and variables: templates.ts. Site representation (the
 * publisher: an organization or a person) is the option
 * `seo_site_representation`.
 */
import { createHash } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import { check, endpoint, kernelErrors, RestResponse, route, type RestRequest, type RouteDecl, who } from '@cms/rest'
import { cachedSiteOptions, findUserById, serviceKey, textPool, fromLocal, permalink, type MediaDetails, type PackageBase, type PackageOption, type PostWithDetails, type TermRow, type UserRecord } from '@cms/core'
import { HEAD_EXAMPLE } from './head-example.js'
import { seoErrors } from './errors.js'
import { metaString, SEO } from './meta.js'
import { replaceVariables, templateOf, TEMPLATES_SCHEMA } from './templates.js'

const NS = 'seo/v1'

/** The longest `url` taken (the work is linear in it). */
export const HEAD_URL_MAX = 2048

export type HeadJson = Record<string, unknown>

/** What get_head answers (and `postHead` builds). */
export interface SeoHead {
  /** The head's tags, every value escaped. */
  html: string
  json: HeadJson
  status: 200 | 404
}

/** `SeoHead` for the API reference. */
const SEO_HEAD = Type.Object({
  html: Type.String({ description: 'The head\'s tags (title, meta, link, the JSON-LD script), every value escaped.' }),
  json: Type.Object({
    title: Type.String(),
    robots: Type.Record(Type.String(), Type.String()),
    schema: Type.Object({ '@context': Type.String(), '@graph': Type.Array(Type.Object({}, { additionalProperties: true })) })
  }, { additionalProperties: true, description: 'The same data as keys (og:title is og_title); keys without a value are left out.' }),
  status: Type.Integer({ description: '200, or 404 with the 404 page\'s head.' })
})

export const REPRESENTATION = Type.Object({
  company_or_person: Type.Union([Type.Literal('company'), Type.Literal('person')]),
  company_name: Type.String({ maxLength: 200 }),
  /** A media id of this site (0: none). */
  company_logo_id: Type.Integer({ minimum: 0 }),
  /** The user the site represents when `person` (0: none). */
  person_user_id: Type.Integer({ minimum: 0 }),
  /** A logo by URL, used when no media id is set (configuration/site_representation). */
  company_logo: Type.Optional(Type.String({ maxLength: 2048 })),
  person_logo: Type.Optional(Type.String({ maxLength: 2048 })),
  person_logo_id: Type.Optional(Type.Integer({ minimum: 0 })),
  /** The organization's description (empty: none). */
  description: Type.Optional(Type.String({ maxLength: 1000 }))
}, { additionalProperties: false })

/** The site's social profiles (the real `facebook_site`, `twitter_site`, `other_social_urls`): the publisher's `sameAs`. */
export const SOCIAL_PROFILES = Type.Object({
  social_a_site: Type.String({ maxLength: 2048 }),
  /** A handle (`@name` kept without the `@`) or a profile URL. */
  social_b_site: Type.String({ maxLength: 2048 }),
  other_social_urls: Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 50 })
}, { additionalProperties: false })

export interface HeadOptions {
  enabled: PackageOption<ReturnType<typeof Type.Boolean>>
  templates: PackageOption<typeof TEMPLATES_SCHEMA>
  representation: PackageOption<typeof REPRESENTATION>
  social: PackageOption<typeof SOCIAL_PROFILES>
}

/**
 * What builds heads: the package's API, its options and the site options it
 * reads. Made once, in the package's contribute (`registerHead`), and
 * handed to whatever builds a head; provided as `HEAD_SERVICE` to packages
 * depending on this one (and to tests: `platform.service(HEAD_SERVICE)`).
 */
export interface HeadService extends HeadOptions {
  readonly api: PackageBase
  readonly siteOptions: ReturnType<typeof cachedSiteOptions>
}

export const HEAD_SERVICE = serviceKey<HeadService>('@cms/seo/head')

/** Declares the head's options and makes the head service (called once from the package's contribute). */
export function registerHead (api: PackageBase): HeadService {
  const options: HeadOptions = {
    enabled: api.option('seo_enable_headless_rest_endpoints', Type.Boolean(), {
      default: true,
      description: 'Serve the SEO head of a URL (GET /seo/v1/get_head); the seo_head_json field of posts and pages follows it too.'
    }),
    templates: api.option('seo_titles', TEMPLATES_SCHEMA, {
      default: {},
      description: 'Title and description templates by key (title-post, metadesc-page, title-tax-category, separator, noindex-<key> set to 1...), over the defaults.'
    }),
    representation: api.option('seo_site_representation', REPRESENTATION, {
      default: { company_or_person: 'company', company_name: '', company_logo_id: 0, person_user_id: 0 },
      description: 'Whom the site represents in the structured data: a company (name, logo) or a person (a user).'
    }),
    social: api.option('seo_social_profiles', SOCIAL_PROFILES, {
      default: { social_a_site: '', social_b_site: '', other_social_urls: [] },
      description: 'The site\'s social profiles: the publisher\'s sameAs, article:publisher and twitter:site.'
    })
  }
  return { ...options, api, siteOptions: cachedSiteOptions(api.services.store) }
}

// ---------------------------------------------------------------- the route

export function headRoutes (head: HeadService): RouteDecl[] {
  return [route({
    namespace: NS,
    path: `/${NS}/get_head`,
    endpoints: [endpoint({
      methods: ['GET'],
      summary: 'The SEO head (tags and data) of a URL of this site',
      response: SEO_HEAD,
      example: HEAD_EXAMPLE,
      // A URL that shows nothing: the 404 page's head, in the error shape too.
      errorResponses: { 404: { description: 'No such page (or the route is off): the 404 page\'s head with the error\'s code, message and data.', schema: Type.Partial(SEO_HEAD) } },
      args: {
        url: Type.String({
          description: 'An absolute URL of this site (only parsed, never fetched).',
          maxLength: HEAD_URL_MAX,
          pattern: '^[A-Za-z][A-Za-z0-9+.-]{0,20}://[^\\s/?#]'
        })
      },
      // Public, while the option is on; off, the route answers as if it were not registered.
      permission: check(async () => await head.enabled.get() ? true : kernelErrors.rest_no_route(),
        who.everyone('§1.3 get_head: public (while enable_headless_rest_endpoints is on)', { query: { url: 'http://cms.test/' } })),
      handler: async (req) => {
        let url: URL
        try {
          url = new URL(req.params.url)
        } catch {
          throw seoErrors.rest_invalid_param({ params: { url: 'url is not a valid URL.' } }, 'Invalid parameter(s): url')
        }
        const site = await siteOf(head, req)
        const found = await resolveHead(site, req, url)
        if (found !== undefined) return found
        // The notes' body (the 404 page's head, `status: 404`), in the error shape too (CONVENTIONS.md §3).
        const missing = seoErrors.seo_head_not_found()
        return new RestResponse({ ...await notFoundHead(site), code: missing.code, message: missing.message, data: missing.data }, 404)
      }
    })]
  })]
}

/**
 * The head of one post or page (any status: the caller decides who may
 * see it; a password-protected post shows nothing of its content). `post`
 * is its id or the post as `api.content.post` answers it (saves the read).
 * Undefined when there is no such post or its type has no public pages
 * (attachments, a package's documents). Site-wide data is read once per
 * request through `req.memo`. `head` is the package's head service
 * (`registerHead`; `HEAD_SERVICE` for packages depending on this one).
 */
export async function postHead (head: HeadService, req: RestRequest, post: number | PostWithDetails): Promise<SeoHead | undefined> {
  const own = head.api
  const found = typeof post === 'number' ? await req.memo(`seo:head-post:${post}`, async () => await own.content.post(post)) : post
  if (found === undefined) return undefined
  const site = await siteOf(head, req)
  if (!site.viewableTypes.has(found.post.type) || found.post.type === 'attachment') return undefined
  return await singularHead(site, req, found)
}

/**
 * Reads the posts a list will ask `postHead` for, with their authors, in a
 * few reads for all of them (at most 100): a later `postHead(api, req, id)`
 * of the same request uses them.
 */
export async function preloadPostHeads (head: HeadService, req: RestRequest, ids: readonly number[]): Promise<void> {
  const found = await head.api.content.postsWithDetails(ids.slice(0, 100))
  for (const f of found) await req.memo(`seo:head-post:${f.post.id}`, async () => f)
  const site = await siteOf(head, req)
  for (const author of new Set(found.map((f) => f.post.author))) await userOf(site, req, author)
}

/**
 * The head of a category's or tag's archive, from the term as cms/v2
 * answers it (`id`, `name`, `slug`, `description`, `taxonomy`).
 */
export async function termObjectHead (head: HeadService, req: RestRequest, term: Readonly<Record<string, unknown>>): Promise<SeoHead> {
  const site = await siteOf(head, req)
  // Both head fields of one term ask: it is built once per request.
  return await req.memo(`seo:head-term:${String(term.taxonomy)}:${String(term.id)}`, async () => await termHead(site, {
    id: term.id as number,
    taxonomy: term.taxonomy as string,
    name: String(term.name ?? ''),
    slug: String(term.slug ?? ''),
    description: String(term.description ?? '')
  }))
}

/** The head of a user's author archive; undefined while they have no published content (their archive is not found). */
export async function authorObjectHead (head: HeadService, req: RestRequest, userId: number): Promise<SeoHead | undefined> {
  const site = await siteOf(head, req)
  return await req.memo(`seo:head-author:${userId}`, async () => await authorHead(site, req, userId))
}

// ---------------------------------------------------------------- site-wide data, once per request

interface Site {
  api: PackageBase
  /** Home URL without a trailing slash, as cms/v2 builds its links. */
  home: string
  homeUrl: URL
  name: string
  tagline: string
  /** `en_US`. */
  locale: string
  /** `en-US`. */
  language: string
  sep: string
  templates: Readonly<Record<string, string>>
  /** Whether search engines may index the site at all (`blog_public`). */
  indexable: boolean
  /** The site's time zone (`timezone_string`): date archives are its calendar days. */
  timeZone: string
  frontPage: number
  viewableTypes: Map<string, { name: string, hasArchive: boolean }>
  representation: Static<typeof REPRESENTATION>
  social: Static<typeof SOCIAL_PROFILES>
  publisher: { id: string, nodes: Node[] } | undefined
}

async function siteOf (head: HeadService, req: RestRequest): Promise<Site> {
  const { api, siteOptions } = head
  return await req.memo('seo:head-site', async () => {
    const options = head
    const o = await siteOptions(req)
    const home = (String(o.home) === '' ? req.baseUrl : String(o.home)).replace(/\/+$/, '')
    const templates = await options.templates.get()
    const locale = String(o.language) === '' ? 'en_US' : String(o.language)
    const viewableTypes = new Map<string, { name: string, hasArchive: boolean }>()
    for (const [slug, info] of api.services.types.postTypes) {
      if (info.viewable) viewableTypes.set(slug, { name: info.name, hasArchive: info.hasArchive !== false })
    }
    const site: Site = {
      api,
      home,
      homeUrl: new URL(`${home}/`),
      name: await text(String(o.name)),
      tagline: await text(String(o.description)),
      locale,
      language: locale.replace(/_/g, '-'),
      sep: templateOf(templates, 'separator'),
      templates,
      indexable: Number(o.blog_public) !== 0,
      timeZone: String(o.timezone_string) === '' ? 'UTC' : String(o.timezone_string),
      frontPage: String(o.show_on_front) === 'page' ? Number(o.page_on_front) : 0,
      viewableTypes,
      representation: await options.representation.get(),
      social: await options.social.get(),
      publisher: undefined
    }
    site.publisher = await publisherOf(site, req)
    return site
  })
}

/** The publisher node(s) of the graph: an Organization, or the Person the site represents. */
async function publisherOf (site: Site, req: RestRequest): Promise<Site['publisher']> {
  const r = site.representation
  // A logo by media id, else by the URL the wizard stored.
  const logoOf = async (id: number | undefined, url: string | undefined, nodeId: string): Promise<Node | undefined> => {
    const found = id !== undefined && id > 0 ? await mediaOf(site, req, id) : undefined
    if (found !== undefined) return await imageNode(site, nodeId, found)
    return url === undefined || url === '' ? undefined : await imageNode(site, nodeId, { url })
  }
  if (r.company_or_person === 'person') {
    const user = r.person_user_id > 0 ? await userOf(site, req, r.person_user_id) : undefined
    if (user === undefined) return undefined
    const person = await personNode(site, user)
    const logo = await logoOf(r.person_logo_id, r.person_logo, `${site.home}/#/schema/person/image/`)
    return { id: person['@id'] as string, nodes: [{ ...person, '@type': ['Person', 'Organization'], ...(logo === undefined ? {} : { logo, image: { '@id': logo['@id'] } }) }] }
  }
  const id = `${site.home}/#organization`
  const logoNode = await logoOf(r.company_logo_id, r.company_logo, `${site.home}/#/schema/logo/image/`)
  const s = site.social
  const sameAs = [s.social_a_site, s.social_b_site === '' || /^https?:/i.test(s.social_b_site) ? s.social_b_site : `https://x.com/${s.social_b_site}`, ...s.other_social_urls].filter((u) => u !== '')
  return {
    id,
    nodes: [{
      '@type': 'Organization',
      '@id': id,
      name: r.company_name === '' ? site.name : await text(r.company_name),
      url: `${site.home}/`,
      ...(r.description === undefined || r.description === '' ? {} : { description: await text(r.description) }),
      ...(logoNode === undefined ? {} : { logo: logoNode, image: { '@id': logoNode['@id'] } }),
      ...(sameAs.length === 0 ? {} : { sameAs })
    }]
  }
}

async function userOf (site: Site, req: RestRequest, id: number): Promise<UserRecord | undefined> {
  return await req.memo(`seo:head-user:${id}`, async () => await findUserById(site.api.services.store, id))
}

async function mediaOf (site: Site, req: RestRequest, id: number): Promise<MediaDetails | undefined> {
  const found = await req.memo(`seo:head-media:${id}`, async () => await site.api.content.media(id, site.home))
  // Only a file anyone may see (a private or trashed attachment stays out).
  return found === undefined || found.url === '' || (found.status !== 'inherit' && found.status !== 'publish') ? undefined : found
}

// ---------------------------------------------------------------- resolving a URL

/** The head `url` names, or undefined when it names nothing an anonymous reader may see. */
async function resolveHead (site: Site, req: RestRequest, url: URL): Promise<SeoHead | undefined> {
  if (url.host !== site.homeUrl.host || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined
  const base = site.homeUrl.pathname.replace(/\/+$/, '')
  if (!url.pathname.startsWith(base)) return undefined
  const path = url.pathname.slice(base.length)
  const q = url.searchParams
  const id = (name: string): number | undefined => {
    const v = q.get(name)
    return v !== null && /^\d{1,15}$/.test(v) && Number(v) > 0 ? Number(v) : undefined
  }
  const dated = /^\/(\d{4})(?:\/(\d{1,2})(?:\/(\d{1,2}))?)?\/?$/.exec(path)
  if (dated !== null) return await dateHead(site, req, Number(dated[1]), Number(dated[2] ?? 0), Number(dated[3] ?? 0))
  if (path !== '' && path !== '/' && path !== '/index.php') return undefined

  if (q.has('p') || q.has('page_id')) {
    const postId = id(q.has('p') ? 'p' : 'page_id')
    if (postId === undefined) return undefined
    const found = await site.api.content.post(postId)
    if (found === undefined || found.post.status !== 'publish' || found.post.type === 'attachment' || !site.viewableTypes.has(found.post.type)) return undefined
    if (q.has('page_id') !== (found.post.type === 'page')) return undefined
    return await singularHead(site, req, found)
  }
  if (q.has('attachment_id')) return undefined
  if (q.has('cat')) {
    const termId = id('cat')
    const [term] = termId === undefined ? [] : await site.api.content.terms({ taxonomy: 'category', include: [termId] })
    return term === undefined ? undefined : await termHead(site, term)
  }
  if (q.has('tag')) {
    // Slugs keep non-ASCII letters as lowercase `%xx` escapes, which the query parser decoded.
    const slug = q.get('tag')!.slice(0, 200)
    const [term] = await site.api.content.terms({ taxonomy: 'post_tag', slug: [...new Set([slug, encodeURIComponent(slug).toLowerCase()])] })
    return term === undefined ? undefined : await termHead(site, term)
  }
  if (q.has('author')) {
    const userId = id('author')
    return userId === undefined ? undefined : await authorHead(site, req, userId)
  }
  if (q.has('s')) return await searchHead(site, q.get('s')!)
  if (q.has('m')) {
    const m = /^(\d{4})(\d{2})?(\d{2})?$/.exec(q.get('m')!)
    return m === null ? undefined : await dateHead(site, req, Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0))
  }
  if (q.has('year')) {
    const part = (name: string): number => /^\d{1,4}$/.test(q.get(name) ?? '') ? Number(q.get(name)) : 0
    return await dateHead(site, req, part('year'), part('monthnum'), part('day'))
  }
  if (q.has('post_type')) {
    const type = q.get('post_type')!
    const info = site.viewableTypes.get(type)
    return info === undefined || !info.hasArchive ? undefined : await typeArchiveHead(site, type, info.name)
  }
  return await homeHead(site, req)
}

// ---------------------------------------------------------------- the heads

/** What one page's head is made of, before it becomes json and html. */
interface Parts {
  status: 200 | 404
  title: string
  description: string
  robots: Record<string, string>
  /** The page's URL (the WebPage's @id); the canonical tag unless noindexed. */
  url?: string
  ogType?: string
  ogTitle?: string
  ogDescription?: string
  published?: Date | null
  modified?: Date | null
  image?: MediaDetails | { url: string }
  author?: string
  twitter?: { title?: string, description?: string, image?: string }
  misc?: Record<string, string>
  graph: Node[]
}

type Node = Record<string, unknown>

async function singularHead (site: Site, req: RestRequest, found: PostWithDetails): Promise<SeoHead> {
  const { post, meta } = found
  const isPage = post.type === 'page'
  const front = isPage && post.id === site.frontPage && post.status === 'publish'
  const link = front ? `${site.home}/` : permalink(site.home, post.type, post.id)
  const url = metaString(meta, SEO.canonical) === '' ? link : metaString(meta, SEO.canonical)
  const isProtected = post.password !== ''
  const title = await text(post.title)
  const user = await userOf(site, req, post.author)
  // The content's text, once (the excerpt and the word count come from it).
  const body = isProtected ? '' : await text(post.content)
  const excerpt = isProtected ? '' : await excerptOf(post.excerpt, body)
  const typeKey = isPage ? 'page' : post.type
  const vars: Record<string, string> = {
    ...siteVars(site),
    title,
    excerpt,
    excerpt_only: isProtected ? '' : await text(post.excerpt),
    category: (await Promise.all(found.terms.category.map(async (c) => await text(c.name)))).join(', '),
    tag: (await Promise.all(found.terms.post_tag.map(async (c) => await text(c.name)))).join(', '),
    name: user === undefined ? '' : await text(user.displayName),
    date: post.dateGmt === null ? '' : longDate(post.dateGmt),
    modified: longDate(post.modifiedGmt),
    id: String(post.id),
    pt_single: site.viewableTypes.get(post.type)?.name ?? '',
    pt_plural: site.viewableTypes.get(post.type)?.name ?? ''
  }
  const seoTitleText = fill(site, metaString(meta, SEO.title) !== '' ? metaString(meta, SEO.title) : templateOf(site.templates, front ? 'title-home' : `title-${typeKey}`, 'title-post'), vars)
  const description = fill(site, metaString(meta, SEO.metadesc) !== '' ? metaString(meta, SEO.metadesc) : templateOf(site.templates, `metadesc-${typeKey}`, 'metadesc-post'), vars)
  const stored = metaString(meta, SEO.noindex)
  // Unset: the type's default; a private post (seen by those who may) is never indexed.
  const noindex = stored === '1' || (stored !== '2' && (site.templates[`noindex-${typeKey}`] === '1' || post.status === 'private'))
  const robots = robotsOf(site, noindex, metaString(meta, SEO.nofollow) === '1', metaString(meta, SEO.robotsAdv))

  // A password-protected post shows no image either (as the real product).
  const ogImageId = isProtected ? 0 : Number(metaString(meta, SEO.ogImageId))
  let image: Parts['image']
  if (ogImageId > 0) image = await mediaOf(site, req, ogImageId)
  if (image === undefined && !isProtected && metaString(meta, SEO.ogImage) !== '') image = { url: metaString(meta, SEO.ogImage) }
  if (image === undefined && !isProtected && post.featuredMedia > 0) image = await mediaOf(site, req, post.featuredMedia)

  const readingTime = metaString(meta, SEO.readingTime)
  const misc: Record<string, string> = {}
  if (user !== undefined) misc['Written by'] = await text(user.displayName)
  if (/^\d{1,6}$/.test(readingTime) && !isProtected) misc['Est. reading time'] = Number(readingTime) <= 1 ? '1 minute' : `${Number(readingTime)} minutes`

  const article = post.type === 'post'
  const webPage = webPageNode(site, 'WebPage', url, seoTitleText, description, image !== undefined)
  if (post.dateGmt !== null) webPage.datePublished = isoDate(post.dateGmt)
  webPage.dateModified = isoDate(post.modifiedGmt)
  if (!article && user !== undefined && !front) webPage.author = { '@id': personId(site, user.id) }
  webPage.potentialAction = [{ '@type': 'ReadAction', target: [url] }]
  const graph: Node[] = []
  if (article) {
    graph.push({
      '@type': 'Article',
      '@id': `${url}#article`,
      isPartOf: { '@id': url },
      ...(user === undefined ? {} : { author: { name: await text(user.displayName), '@id': personId(site, user.id) } }),
      headline: title.slice(0, 110),
      ...(post.dateGmt === null ? {} : { datePublished: isoDate(post.dateGmt) }),
      dateModified: isoDate(post.modifiedGmt),
      mainEntityOfPage: { '@id': url },
      wordCount: body === '' ? 0 : body.split(' ').length,
      ...(site.publisher === undefined ? {} : { publisher: { '@id': site.publisher.id } }),
      ...(image === undefined ? {} : { image: { '@id': `${url}#primaryimage` }, thumbnailUrl: image.url }),
      ...(found.terms.post_tag.length === 0 ? {} : { keywords: await Promise.all(found.terms.post_tag.map(async (c) => await text(c.name))) }),
      ...(found.terms.category.length === 0 ? {} : { articleSection: await Promise.all(found.terms.category.map(async (c) => await text(c.name))) }),
      inLanguage: site.language
    })
  }
  graph.push(webPage)
  if (image !== undefined) graph.push(await imageNode(site, `${url}#primaryimage`, image))
  graph.push(breadcrumbNode(site, url, front ? [] : [...await ancestorsOf(site, req, found), { name: title }]))
  graph.push(...siteNodes(site))
  if (user !== undefined && (article || !front)) graph.push(await personNode(site, user))

  return render(site, {
    status: 200,
    title: seoTitleText,
    description,
    robots,
    url,
    ogType: front ? 'website' : 'article',
    ogTitle: metaString(meta, SEO.ogTitle) === '' ? seoTitleText : fill(site, metaString(meta, SEO.ogTitle), vars),
    ogDescription: metaString(meta, SEO.ogDescription) !== '' ? fill(site, metaString(meta, SEO.ogDescription), vars) : description !== '' ? description : excerpt,
    // As the real product: the published time on posts only, the modified time once it differs.
    published: article ? post.dateGmt : undefined,
    modified: post.dateGmt === null || post.modifiedGmt.getTime() !== post.dateGmt.getTime() ? post.modifiedGmt : undefined,
    image,
    author: user === undefined ? undefined : await text(user.displayName),
    twitter: {
      title: metaString(meta, SEO.twitterTitle) === '' ? undefined : fill(site, metaString(meta, SEO.twitterTitle), vars),
      description: metaString(meta, SEO.twitterDescription) === '' ? undefined : fill(site, metaString(meta, SEO.twitterDescription), vars),
      image: metaString(meta, SEO.twitterImage) === '' || isProtected ? undefined : metaString(meta, SEO.twitterImage)
    },
    misc,
    graph: dedupe(graph)
  })
}

/** The published pages above a page, top first, as breadcrumb steps (at most 10 levels: parents form no loop the store could not hold, but the walk stays bounded). */
async function ancestorsOf (site: Site, req: RestRequest, found: PostWithDetails): Promise<Crumb[]> {
  const steps: Crumb[] = []
  let parent = found.post.parent
  for (let depth = 0; parent > 0 && depth < 10; depth++) {
    const id = parent
    const above = await req.memo(`seo:head-parent:${id}`, async () => (await site.api.content.posts({ type: found.post.type, include: [id], perPage: 1 })).posts[0])
    if (above === undefined) break
    steps.unshift({ name: await text(above.title), item: permalink(site.home, above.type, above.id) })
    parent = above.parent
  }
  return steps
}

async function termHead (site: Site, term: Pick<TermRow, 'id' | 'taxonomy' | 'name' | 'slug' | 'description'>): Promise<SeoHead> {
  const url = term.taxonomy === 'category' ? `${site.home}/?cat=${term.id}` : `${site.home}/?tag=${term.slug}`
  const name = await text(term.name)
  const termDescription = await text(term.description)
  const vars = { ...siteVars(site), term_title: name, term_description: termDescription, category_description: termDescription, tag_description: termDescription }
  const title = fill(site, templateOf(site.templates, `title-tax-${term.taxonomy}`, 'title-tax-category'), vars)
  const description = fill(site, templateOf(site.templates, `metadesc-tax-${term.taxonomy}`, 'metadesc-tax-category'), vars)
  const robots = robotsOf(site, site.templates[`noindex-tax-${term.taxonomy}`] === '1', false, '')
  return render(site, {
    status: 200,
    title,
    description,
    robots,
    url,
    ogType: 'article',
    ogTitle: title,
    ogDescription: description !== '' ? description : termDescription,
    graph: dedupe([webPageNode(site, 'CollectionPage', url, title, description, false), breadcrumbNode(site, url, [name]), ...siteNodes(site)])
  })
}

async function authorHead (site: Site, req: RestRequest, id: number): Promise<SeoHead | undefined> {
  const user = await userOf(site, req, id)
  if (user === undefined) return undefined
  // As cms/v2 shows users to anonymous readers: only authors of published content.
  const { total } = await site.api.content.posts({ type: [...site.viewableTypes.keys()], author: [id], perPage: 1 })
  if (total === 0) return undefined
  const url = `${site.home}/?author=${id}`
  const name = await text(user.displayName)
  const vars = { ...siteVars(site), name, user_description: await text(user.description) }
  const title = fill(site, templateOf(site.templates, 'title-author'), vars)
  const description = fill(site, templateOf(site.templates, 'metadesc-author'), vars)
  const person = { ...await personNode(site, user), mainEntityOfPage: { '@id': url } }
  return render(site, {
    status: 200,
    title,
    description,
    robots: robotsOf(site, site.templates['noindex-author'] === '1', false, ''),
    url,
    ogType: 'profile',
    ogTitle: title,
    ogDescription: description,
    graph: dedupe([webPageNode(site, 'ProfilePage', url, title, description, false), breadcrumbNode(site, url, [`Archives for ${name}`]), ...siteNodes(site), person])
  })
}

async function searchHead (site: Site, phrase: string): Promise<SeoHead> {
  const searched = await text(phrase.slice(0, 200))
  const url = `${site.home}/?s=${encodeURIComponent(phrase.slice(0, 200))}`
  const title = fill(site, templateOf(site.templates, 'title-search'), { ...siteVars(site), searchphrase: searched })
  return render(site, {
    status: 200,
    title,
    description: '',
    // Search results are never indexed, and have no canonical URL.
    robots: robotsOf(site, true, false, ''),
    url,
    ogType: 'article',
    ogTitle: title,
    graph: dedupe([webPageNode(site, ['CollectionPage', 'SearchResultsPage'], url, title, '', false), breadcrumbNode(site, url, [`You searched for ${searched}`]), ...siteNodes(site)])
  })
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']

async function dateHead (site: Site, req: RestRequest, year: number, month: number, day: number): Promise<SeoHead | undefined> {
  if (year < 1000 || year > 9998 || month > 12 || (month === 0 && day > 0)) return undefined
  // The calendar's days are checked in UTC arithmetic; the bounds are the site's midnights.
  const first = new Date(Date.UTC(year, Math.max(0, month - 1), Math.max(1, day)))
  if (day > 0 && first.getUTCDate() !== day) return undefined
  const next = new Date(Date.UTC(year + (month === 0 ? 1 : 0), month === 0 ? 0 : day === 0 ? month : month - 1, day === 0 ? 1 : day + 1))
  const midnight = (d: Date): Date => fromLocal(`${d.toISOString().slice(0, 10)}T00:00:00`, site.timeZone)
  const start = midnight(first)
  const end = midnight(next)
  // As the core does: a date archive without published posts is not found.
  const { total } = await site.api.content.posts({ type: 'post', after: new Date(start.getTime() - 1), before: end, perPage: 1 })
  if (total === 0) return undefined
  const label = day > 0 ? `${MONTHS[month - 1]} ${day}, ${year}` : month > 0 ? `${MONTHS[month - 1]} ${year}` : String(year)
  const pad = (n: number): string => String(n).padStart(2, '0')
  const url = `${site.home}/?m=${year}${month > 0 ? pad(month) : ''}${day > 0 ? pad(day) : ''}`
  const vars = { ...siteVars(site), date: label }
  const title = fill(site, templateOf(site.templates, 'title-archive'), vars)
  const description = fill(site, templateOf(site.templates, 'metadesc-archive'), vars)
  return collectionHead(site, url, title, description, site.templates['noindex-archive'] !== '0', `Archives for ${label}`)
}

async function typeArchiveHead (site: Site, type: string, name: string): Promise<SeoHead> {
  const url = `${site.home}/?post_type=${type}`
  const vars = { ...siteVars(site), pt_plural: await text(name), pt_single: await text(name) }
  const title = fill(site, templateOf(site.templates, `title-ptarchive-${type}`, 'title-ptarchive'), vars)
  const description = fill(site, templateOf(site.templates, `metadesc-ptarchive-${type}`, 'metadesc-ptarchive'), vars)
  return collectionHead(site, url, title, description, site.templates[`noindex-ptarchive-${type}`] === '1', await text(name))
}

/** A date or post-type archive's head: a CollectionPage with a one-step breadcrumb. */
function collectionHead (site: Site, url: string, title: string, description: string, noindex: boolean, crumb: string): SeoHead {
  return render(site, {
    status: 200,
    title,
    description,
    robots: robotsOf(site, noindex, false, ''),
    url,
    ogType: 'website',
    ogTitle: title,
    ogDescription: description,
    graph: dedupe([webPageNode(site, 'CollectionPage', url, title, description, false), breadcrumbNode(site, url, [crumb]), ...siteNodes(site)])
  })
}

async function homeHead (site: Site, req: RestRequest): Promise<SeoHead> {
  if (site.frontPage > 0) {
    const found = await site.api.content.post(site.frontPage)
    if (found !== undefined && found.post.status === 'publish' && found.post.type === 'page') return await singularHead(site, req, found)
  }
  const url = `${site.home}/`
  const vars = siteVars(site)
  const title = fill(site, templateOf(site.templates, 'title-home'), vars)
  const description = fill(site, templateOf(site.templates, 'metadesc-home'), vars)
  return render(site, {
    status: 200,
    title,
    description,
    robots: robotsOf(site, false, false, ''),
    url,
    ogType: 'website',
    ogTitle: title,
    ogDescription: description !== '' ? description : site.tagline,
    graph: dedupe([webPageNode(site, 'CollectionPage', url, title, description, false), breadcrumbNode(site, url, []), ...siteNodes(site)])
  })
}

/** The 404 page's head (answered with HTTP 404). */
async function notFoundHead (site: Site): Promise<SeoHead> {
  const title = fill(site, templateOf(site.templates, 'title-404'), siteVars(site))
  return render(site, { status: 404, title, description: '', robots: robotsOf(site, true, false, ''), ogTitle: title, graph: dedupe(siteNodes(site)) })
}

// ---------------------------------------------------------------- pieces

function siteVars (site: Site): Record<string, string> {
  // The year is the one value taken from the clock ("Best boots %%currentyear%%" is a common title): a head
  // kept for anonymous readers shows last year's until the first commit of the new one.
  return { sitename: site.name, sitedesc: site.tagline, sep: site.sep, page: '', currentyear: String(new Date().getUTCFullYear()) }
}

function fill (site: Site, template: string, vars: Record<string, string>): string {
  return replaceVariables(template, { ...vars, sep: site.sep })
}

function robotsOf (site: Site, noindex: boolean, nofollow: boolean, advanced: string): Record<string, string> {
  if (!site.indexable) return { index: 'noindex', follow: 'nofollow' }
  const r: Record<string, string> = { index: noindex ? 'noindex' : 'index', follow: nofollow ? 'nofollow' : 'follow' }
  // The preview limits only mean something on a page that may be indexed.
  if (!noindex) Object.assign(r, { 'max-snippet': 'max-snippet:-1', 'max-image-preview': 'max-image-preview:large', 'max-video-preview': 'max-video-preview:-1' })
  for (const a of advanced.split(',').map((s) => s.trim())) if (['noimageindex', 'noarchive', 'nosnippet'].includes(a)) r[a] = a
  return r
}

function personId (site: Site, userId: number): string {
  // A stable id that does not show the user's login.
  return `${site.home}/#/schema/person/${createHash('sha256').update(`person:${userId}`).digest('hex').slice(0, 32)}`
}

async function personNode (site: Site, user: UserRecord): Promise<Node> {
  return {
    '@type': 'Person',
    '@id': personId(site, user.id),
    name: await text(user.displayName),
    ...(user.description === '' ? {} : { description: await text(user.description) }),
    ...(user.url === '' ? {} : { sameAs: [user.url] }),
    url: `${site.home}/?author=${user.id}`
  }
}

async function imageNode (site: Site, id: string, image: MediaDetails | { url: string }): Promise<Node> {
  const m = image as Partial<MediaDetails>
  return {
    '@type': 'ImageObject',
    inLanguage: site.language,
    '@id': id,
    url: image.url,
    contentUrl: image.url,
    ...(m.width === undefined ? {} : { width: m.width, height: m.height }),
    ...(m.caption === undefined || m.caption === '' ? {} : { caption: await text(m.caption) })
  }
}

function webPageNode (site: Site, type: string | string[], url: string, name: string, description: string, withImage: boolean): Node {
  return {
    '@type': type,
    '@id': url,
    url,
    name,
    isPartOf: { '@id': `${site.home}/#website` },
    ...(withImage ? { primaryImageOfPage: { '@id': `${url}#primaryimage` }, image: { '@id': `${url}#primaryimage` } } : {}),
    ...(description === '' ? {} : { description }),
    breadcrumb: { '@id': `${url}#breadcrumb` },
    inLanguage: site.language
  }
}

interface Crumb { name: string, item?: string }

/** Home, then the steps; the last step is the page itself (no `item`). */
function breadcrumbNode (site: Site, url: string, steps: Array<Crumb | string>): Node {
  const crumbs: Crumb[] = [{ name: 'Home', item: `${site.home}/` }, ...steps.map((s) => typeof s === 'string' ? { name: s } : s)]
  return {
    '@type': 'BreadcrumbList',
    '@id': `${url}#breadcrumb`,
    itemListElement: crumbs.map((c, i) => ({
      '@type': 'ListItem',
      position: i + 1,
      name: c.name,
      ...(c.item !== undefined && (i < crumbs.length - 1 || crumbs.length === 1) ? { item: c.item } : {})
    }))
  }
}

function siteNodes (site: Site): Node[] {
  return [{
    '@type': 'WebSite',
    '@id': `${site.home}/#website`,
    url: `${site.home}/`,
    name: site.name,
    ...(site.tagline === '' ? {} : { description: site.tagline }),
    ...(site.publisher === undefined ? {} : { publisher: { '@id': site.publisher.id } }),
    potentialAction: [{
      '@type': 'SearchAction',
      target: { '@type': 'EntryPoint', urlTemplate: `${site.home}/?s={search_term_string}` },
      'query-input': { '@type': 'PropertyValueSpecification', valueRequired: true, valueName: 'search_term_string' }
    }],
    inLanguage: site.language
  }, ...(site.publisher?.nodes ?? [])]
}

/** One node per @id (the author may be the person the site represents: the first, richer one stays). */
function dedupe (nodes: Node[]): Node[] {
  const seen = new Set<unknown>()
  return nodes.filter((n) => {
    if (seen.has(n['@id'])) return false
    seen.add(n['@id'])
    return true
  })
}

// ---------------------------------------------------------------- json and html

function render (site: Site, p: Parts): SeoHead {
  const json: HeadJson = { title: p.title }
  if (p.description !== '') json.description = p.description
  json.robots = p.robots
  if (p.url !== undefined && p.robots.index !== 'noindex') json.canonical = p.url
  json.og_locale = site.locale
  if (p.ogType !== undefined) json.og_type = p.ogType
  json.og_title = p.ogTitle ?? p.title
  if (p.ogDescription !== undefined && p.ogDescription !== '') json.og_description = p.ogDescription
  if (p.url !== undefined) json.og_url = p.url
  json.og_site_name = site.name
  if (p.published !== undefined && p.published !== null && site.social.social_a_site !== '') json.article_publisher = site.social.social_a_site
  if (p.published !== undefined && p.published !== null) json.article_published_time = isoDate(p.published)
  if (p.modified !== undefined && p.modified !== null) json.article_modified_time = isoDate(p.modified)
  if (p.image !== undefined) {
    const m = p.image as Partial<MediaDetails>
    json.og_image = [{ ...(m.width === undefined ? {} : { width: m.width, height: m.height }), url: p.image.url, ...(m.mime === undefined || m.mime === '' ? {} : { type: m.mime }) }]
  }
  if (p.author !== undefined) json.author = p.author
  json.twitter_card = 'summary_large_image'
  if (site.social.social_b_site !== '' && !/^https?:/i.test(site.social.social_b_site)) json.twitter_site = `@${site.social.social_b_site}`
  if (p.twitter?.title !== undefined) json.twitter_title = p.twitter.title
  if (p.twitter?.description !== undefined) json.twitter_description = p.twitter.description
  if (p.twitter?.image !== undefined) json.twitter_image = p.twitter.image
  if (p.misc !== undefined && Object.keys(p.misc).length > 0) json.twitter_misc = p.misc
  json.schema = { '@context': 'https://schema.org', '@graph': p.graph }
  return { html: htmlOf(json), json, status: p.status }
}

const META_NAMES: Record<string, string> = { description: 'name', author: 'name' }

/** The tags of a head's json, in its order; every value escaped, the JSON-LD unable to close its script. */
function htmlOf (json: HeadJson): string {
  const lines: string[] = []
  const meta = (attr: string, name: string, value: unknown): void => { lines.push(`<meta ${attr}="${esc(name)}" content="${esc(String(value))}" />`) }
  for (const [key, value] of Object.entries(json)) {
    if (key === 'title') lines.push(`<title>${esc(String(value))}</title>`)
    else if (key === 'robots') meta('name', 'robots', Object.values(value as Record<string, string>).join(', '))
    else if (key === 'canonical') lines.push(`<link rel="canonical" href="${esc(String(value))}" />`)
    else if (key === 'og_image') {
      for (const image of value as Array<Record<string, unknown>>) {
        meta('property', 'og:image', image.url)
        for (const k of ['width', 'height', 'type']) if (image[k] !== undefined) meta('property', `og:image:${k}`, image[k])
      }
    } else if (key === 'twitter_misc') {
      Object.entries(value as Record<string, string>).forEach(([label, data], i) => {
        meta('name', `twitter:label${i + 1}`, label)
        meta('name', `twitter:data${i + 1}`, data)
      })
    } else if (key === 'schema') {
      lines.push(`<script type="application/ld+json" class="seo-schema-graph">${scriptJson(value)}</script>`)
    } else if (key.startsWith('twitter_')) meta('name', `twitter:${key.slice(8)}`, value)
    else if (key.startsWith('og_') || key.startsWith('article_')) meta('property', key.replace('_', ':'), value)
    else meta(META_NAMES[key] ?? 'name', key, value)
  }
  return lines.join('\n')
}

function esc (s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ch === '&' ? '&amp;' : ch === '<' ? '&lt;' : ch === '>' ? '&gt;' : ch === '"' ? '&quot;' : '&#039;')
}

/** JSON for inside a script element: no `<`, `>` or `&` (so no `</script>` or `<!--`), no line separators. */
function scriptJson (value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

// ---------------------------------------------------------------- text

/**
 * The text of stored HTML (tags dropped, entities decoded, whitespace
 * folded): the core's `htmlText`, in its text pool (a post's content, a
 * user's description may be megabytes; a short text runs inline).
 */
async function text (html: string): Promise<string> {
  return await textPool.text(html)
}

/** The stored excerpt, else the first 55 words of the content's text (as the core's excerpt). */
async function excerptOf (excerpt: string, body: string): Promise<string> {
  const own = await text(excerpt)
  if (own !== '') return own
  const words = body === '' ? [] : body.split(' ')
  return words.length > 55 ? `${words.slice(0, 55).join(' ')} […]` : body
}

/** `2026-11-26T09:30:00+00:00`, as the real product writes times. */
function isoDate (d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, '+00:00')
}

function longDate (d: Date): string {
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`
}
