/**
 * Extension routes use the core's visibility rules (issue 27): an
 * administrator writes a private, a draft, a future and a password-protected
 * post (and page), each carrying marked text in its title, content, excerpt
 * and SEO fields; then every route of every extension namespace, each
 * method, is called as a contributor and as a subscriber, with valid
 * required arguments and every free-text argument set to the shared word
 * the titles contain (so searches find them), and no answer may carry text
 * those callers may not read: the titles, text and SEO fields of the
 * private, draft and future posts, the content and excerpt of the
 * protected one (its title is public, as cms/v2 shows it). The SEO
 * indexing steps run in their order first, so their answers hold rows.
 * Nothing here names a route but the two the issue reported, checked on
 * their own too.
 */
import t from 'tap'
import { createCaller } from '@cms/core/testing'
import { gatewayApp } from './helpers.js'
import { bodyArgs, fillPath, sampleVar, targetsOf, urlOf, type Target } from './harness/routes.js'
import { validValue } from '@cms/core/testing'
import { encodeParams, inject, type HttpRequest } from './harness/requests.js'
import type { JsonSchema } from '@cms/rest'

/** In every title: what searches are sent. */
const WORD = 'zqxleak'
const HIDDEN = ['private', 'draft', 'future'] as const

/** Text a contributor or subscriber must never see, by where it was written. */
function secretsOf (kind: string, protectedOnly: boolean): string[] {
  const body = [`${kind}BODYmark`, `${kind}EXCERPTmark`]
  return protectedOnly ? body : [`${kind}TITLEmark`, ...body, `${kind}DESCmark`, `${kind}KEYmark`, `${kind}SEOTITLEmark`]
}

const SECRETS = [...HIDDEN.flatMap((k) => secretsOf(k, false)), ...secretsOf('protected', true)]

function takesText (schema: JsonSchema): boolean {
  if (Array.isArray(schema.enum) || typeof schema.pattern === 'string' || typeof schema.format === 'string') return false
  const type = schema.type
  return type === 'string' || (Array.isArray(type) && type.includes('string'))
}

/** The request of a target: valid required arguments, every free-text argument the search word. */
function requestOf (target: Target, headers: Record<string, string>): HttpRequest {
  const vars = Object.fromEntries(target.vars.map((v) => [v, sampleVar(target.decl.vars![v]!)]))
  const params: Record<string, unknown> = {}
  for (const a of bodyArgs(target)) {
    if (takesText(a.schema)) params[a.name] = WORD
    else if (a.required) params[a.name] = validValue(a.schema, a.name)
  }
  const path = fillPath(target.decl.path, vars)
  if (target.method === 'GET' || target.method === 'DELETE') return { method: target.method, url: urlOf(path, encodeParams(params)), headers }
  return { method: target.method, url: urlOf(path, ''), headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(params) }
}

const leaked = (body: string): string[] => SECRETS.filter((s) => body.includes(s))

for (const profile of ['A', 'B'] as const) {
  t.test(`profile ${profile}`, async (t) => {
    const h = await gatewayApp({ env: { CMS_DEPLOYMENT: profile } })
    t.teardown(h.close)
    const admin = (await createCaller(h.store, 'administrator')).headers
    const seo = profile === 'B'
    const write = async (type: 'posts' | 'pages', kind: string, extra: Record<string, unknown>): Promise<void> => {
      const protectedOnly = kind === 'protected'
      const res = await inject(h.app, {
        method: 'POST',
        url: `/cms-json/cms/v2/${type}`,
        headers: { ...admin, 'content-type': 'application/json' },
        payload: JSON.stringify({
          title: protectedOnly ? `${WORD} protected public title` : `${WORD} ${kind}TITLEmark`,
          content: `<p>${WORD} ${kind}BODYmark</p>`,
          excerpt: `${WORD} ${kind}EXCERPTmark`,
          ...(seo && !protectedOnly ? { meta: { _seo_metadesc: `${kind}DESCmark`, _seo_focuskw: `${kind}KEYmark`, _seo_title: `${kind}SEOTITLEmark` } } : {}),
          ...extra
        })
      })
      t.equal(res.status, 201, `${type}: the ${kind} one is written`)
    }
    for (const type of ['posts', 'pages'] as const) {
      await write(type, 'private', { status: 'private' })
      await write(type, 'draft', { status: 'draft' })
      await write(type, 'future', { status: 'future', date: '2099-01-01T00:00:00' })
      await write(type, 'protected', { status: 'publish', password: 'open sesame' })
    }

    const targets = targetsOf(h.app).filter((target) => !/^\/(cms\/v2|batch\/v1|oembed\/)/.test(target.decl.path) && target.decl.path !== '/')
    t.ok(targets.length > 0, `${targets.length} extension route/method targets`)
    // The indexing steps in their order first (their rows exist only once they ran).
    const ordered = [...targets.filter((x) => x.decl.path.includes('/indexing/')), ...targets.filter((x) => !x.decl.path.includes('/indexing/'))]

    for (const role of ['contributor', 'subscriber'] as const) {
      const headers = (await createCaller(h.store, role)).headers
      const found: string[] = []
      for (const target of ordered) {
        const req = requestOf(target, headers)
        const res = await inject(h.app, req)
        const secrets = leaked(res.body)
        if (secrets.length > 0) found.push(`${target.key}: ${secrets.join(', ')} (${res.status})`)
      }
      for (const f of found.slice(0, 30)) t.comment(`LEAK as ${role}: ${f}`)
      t.same(found, [], `as a ${role}, no extension route shows what the core would not`)
    }

    // The two instances the issue reported, on their own.
    const contributor = (await createCaller(h.store, 'contributor')).headers
    const search = await inject(h.app, { method: 'GET', url: `/cms-json/builder/v1/post?term=${WORD}`, headers: contributor })
    t.equal(search.status, 200, 'the link search answers a contributor')
    const rows = (JSON.parse(search.body) as { data: { value: Array<Record<string, unknown>> } }).data.value
    t.ok(rows.some((r) => String(r.post_title).includes('protected public title')), 'the protected posts are found by their public titles')
    t.same(leaked(search.body), [], 'without their content or excerpt')
    if (seo) {
      const step = async (path: string): Promise<string> => {
        const res = await inject(h.app, { method: 'POST', url: `/cms-json/seo/v1/${path}`, headers: contributor })
        t.equal(res.status, 200, path)
        return res.body
      }
      await step('indexing/prepare')
      const posts = await step('indexing/posts')
      t.same(leaked(posts), [], 'indexing/posts answers no row of a post the contributor may not edit')
    }
  })
}
