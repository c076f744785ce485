/**
 * `GET /`: the site description and the full route table of this deployment.
 */
import { Type } from '@sinclair/typebox'
import { endpoint, everyone, restUrl, route, ROUTE_INDEX, Untyped, type RouteDecl } from '@cms/rest'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Services } from './services.js'
import { escapeHtml } from './users/html.js'
import { cachedSiteOptions } from './base/site-options.js'

export function authorizationUrl (baseUrl: string): string {
  return `${baseUrl}/cms-admin/authorize-application.php`
}

/** What `GET /` answers (service-reference.md, "Site description"). */
const SITE_DESCRIPTION = Type.Object({
  name: Type.String(),
  description: Type.String(),
  url: Type.String({ description: 'The absolute URL of the site.' }),
  home: Type.String({ description: 'The absolute URL of the home page.' }),
  gmt_offset: Type.String(),
  timezone_string: Type.String(),
  page_for_posts: Type.Integer(),
  page_on_front: Type.Integer(),
  show_on_front: Type.String(),
  namespaces: Type.Array(Type.String()),
  authentication: Type.Object({
    'application-passwords': Type.Object({ endpoints: Type.Object({ authorization: Type.String({ description: 'The authorization page.' }) }) })
  }, { description: 'Keyed by scheme name.' }),
  routes: ROUTE_INDEX,
  site_logo: Type.Integer(),
  site_icon: Type.Integer(),
  site_icon_url: Type.String()
}, { title: 'site description' })

const API = 'https://cms.example.com/index.php?rest_route='

/** A fresh site's index for the OpenAPI document's example: its routes cut to two, their arguments shortened. */
const EXAMPLE_INDEX = {
  name: 'My CMS Site',
  description: '',
  url: 'https://cms.example.com',
  home: 'https://cms.example.com',
  gmt_offset: '0',
  timezone_string: 'UTC',
  page_for_posts: 0,
  page_on_front: 0,
  show_on_front: 'posts',
  namespaces: ['oembed/1.0', 'cms/v2', 'seo/v1'],
  authentication: { 'application-passwords': { endpoints: { authorization: 'https://cms.example.com/cms-admin/authorize-application.php' } } },
  routes: {
    '/': {
      namespace: '',
      methods: ['GET'],
      endpoints: [{ methods: ['GET'], args: { context: { default: 'view', required: false } } }],
      _links: { self: [{ href: `${API}/` }] }
    },
    '/cms/v2/posts': {
      namespace: 'cms/v2',
      methods: ['GET', 'POST'],
      endpoints: [
        { methods: ['GET'], allow_batch: { v1: true }, args: { per_page: { description: 'Maximum number of items to be returned in result set.', default: 10, type: 'integer', minimum: 1, maximum: 100, required: false } } },
        { methods: ['POST'], allow_batch: { v1: true }, args: { title: { description: 'The title for the post.', type: 'object', required: false } } }
      ],
      _links: { self: [{ href: `${API}/cms/v2/posts` }] }
    }
  },
  site_logo: 0,
  site_icon: 0,
  site_icon_url: '',
  _links: { help: [{ href: 'https://cms.example.com/docs' }] }
}

export function siteRoutes ({ store }: Services): RouteDecl[] {
  const options = cachedSiteOptions(store)
  return [route({
    namespace: '',
    path: '/',
    endpoints: [endpoint({
      methods: ['GET'],
      args: { context: Untyped<string>({ default: 'view' }) },
      summary: 'Describe the site and every route it serves',
      example: { request: { context: 'view' }, response: EXAMPLE_INDEX },
      response: SITE_DESCRIPTION,
      // The description depends on the stored options and the URL only.
      cache: 'public',
      permission: everyone.because('the site index is public'),
      handler: async (req) => {
        const o = await options(req)
        const base = req.baseUrl
        // A deactivated plugin's namespaces are not listed (the kernel's activation).
        const off = await req.registry.off(req)
        return {
          name: o.name,
          description: o.description,
          url: o.url === '' ? base : o.url,
          home: o.home === '' ? base : o.home,
          gmt_offset: String(o.gmt_offset),
          timezone_string: o.timezone_string,
          page_for_posts: Number(o.page_for_posts),
          page_on_front: Number(o.page_on_front),
          show_on_front: o.show_on_front,
          namespaces: off.size === 0 ? req.registry.namespaces : req.registry.namespaces.filter((ns) => !off.has(ns)),
          authentication: {
            'application-passwords': { endpoints: { authorization: authorizationUrl(base) } }
          },
          routes: req.registry.index(base, undefined, off),
          site_logo: Number(o.site_logo),
          site_icon: Number(o.site_icon),
          site_icon_url: '',
          _links: { help: [{ href: `${base}/docs` }] }
        }
      }
    })]
  })]
}

/**
 * The site's front page (`/`, `/index.php`). A headless site shows nothing
 * there but where its API is: the discovery `Link` header and `<link>`
 * element clients start from (autodiscovery). A request naming a
 * `rest_route` the kernel did not route (an empty one) stays a REST answer.
 * `links` (paths on this host, with what they are) are listed under the API's
 * link, for a person who opens the base URL: the reference, health routes.
 */
export async function frontPage (app: FastifyInstance, { services, links = [] }: { services: Services, links?: Array<{ path: string, label: string }> }): Promise<void> {
  const options = cachedSiteOptions(services.store)
  const answer = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (/(?:^|[?&])rest_route(?:=|%5B|\[|&|$)/i.test(request.url)) {
      reply.callNotFound()
      return undefined
    }
    const root = restUrl(request.baseUrl, '/')
    const o = await options()
    reply.header('Link', `<${root}>; rel="https://api.cms.invalid/"`).type('text/html; charset=UTF-8')
    return await reply.send(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(o.name)}</title>
<link rel="https://api.cms.invalid/" href="${escapeHtml(root)}"></head>
<body><h1>${escapeHtml(o.name)}</h1><p>${escapeHtml(o.description)}</p>
<ul><li><a href="${escapeHtml(root)}">REST API</a> (the index of every route)</li>
${links.map((l) => `<li><a href="${escapeHtml(request.baseUrl + l.path)}">${escapeHtml(l.label)}</a></li>\n`).join('')}</ul></body></html>
`)
  }
  app.get('/', { schema: { hide: true } as Record<string, unknown> }, answer)
  app.get('/index.php', { schema: { hide: true } as Record<string, unknown> }, answer)
}
