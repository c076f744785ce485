/**
 * Every link the service emits answers (issue 32 item 4). Over a run of both
 * profiles as the permission prober sends it (every route and method once,
 * as an administrator, with its fixtures and valid arguments:
 * `prober().send`, as openapi-complete.test.ts), every URL in every answer
 * that points at the service itself is collected: strings of the bodies
 * (`_links` hrefs, `link`, `url`, `source_url`, `export_link`,
 * `settings_url`... any string that is a URL of the service) and the `Link`
 * and `Location` headers. Each is fetched once per path pattern (numbers and
 * query values aside), as an administrator, right after the answer that gave
 * it: none may answer 404 (or a 5xx but a 503 naming an outside service
 * the deployment does not configure). A route that takes no GET (the index
 * links `POST /batch/v1`, as the core's does) answers when OPTIONS lists it.
 *
 * Profile B (which emits most admin links: the SEO package's, the plugin
 * catalogue's, the builder's) runs without CMS_ADMIN_URL: no answer may
 * name an admin screen (a `*.php` page that is not the service's own URL),
 * they are null or left out; profile A runs with it: admin links point at
 * that front end (and are not fetched), and no admin screen is named
 * anywhere else.
 * Links in the answers of DELETE requests are left out (their `previous`
 * names what was just deleted).
 */
import t from 'tap'
import { permissionMatrix } from '@cms/core'
import { createCaller, prober, targetsOf, type HttpResponse } from '@cms/core/testing'
import { BASE, gatewayApp } from './helpers.js'

const ADMIN = 'http://admin.test/cms-admin'

/**
 * A link to an admin screen (`/cms-admin/edit.php?...`, `.../options-general.php`, `post.php?post=1`): one
 * token, not prose; a bare file name (`main.php`, a snippet's) is none.
 */
const ADMIN_SCREEN = /^\S*\/[a-z][a-z-]*\.php(?:[?#]\S*)?$|^[a-z][a-z-]*\.php[?#]\S*$/

/**
 * URLs of the service in a JSON value (any string starting with the base
 * URL; templates left out); `admin` counts those of the admin front end and
 * collects the strings naming an admin screen anywhere else.
 */
function urlsIn (value: unknown, out: Set<string>, admin?: { count: number, elsewhere: string[] }): void {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === 'string') {
      if ((v === BASE || v.startsWith(`${BASE}/`) || v.startsWith(`${BASE}?`)) && !/[{}%]/.test(decodeURIComponentSafe(v))) out.add(v)
      if (admin !== undefined && v.startsWith(`${ADMIN}/`)) admin.count++
      else if (admin !== undefined && !v.startsWith(BASE) && ADMIN_SCREEN.test(v)) admin.elsewhere.push(v.slice(0, 200))
    } else if (Array.isArray(v)) {
      stack.push(...v)
    } else if (typeof v === 'object' && v !== null) {
      stack.push(...Object.values(v))
    }
  }
}

function decodeURIComponentSafe (s: string): string {
  try { return decodeURIComponent(s) } catch { return s }
}

/** The URLs of a `Link` header (`<url>; rel="..."`, comma-separated) and a `Location`. */
function urlsInHeaders (res: HttpResponse, out: Set<string>): void {
  const links = res.headers.link
  for (const header of Array.isArray(links) ? links : links === undefined ? [] : [String(links)]) {
    for (const m of header.matchAll(/<([^>]*)>/g)) urlsIn(m[1], out)
  }
  if (res.headers.location !== undefined) urlsIn(String(res.headers.location), out)
}

/**
 * A URL's pattern: its route (the `rest_route` value, else the path) with
 * every number as `#`, and its query's names. One URL per pattern is fetched.
 */
function patternOf (url: URL): string {
  const route = url.searchParams.get('rest_route') ?? url.pathname
  const names = [...url.searchParams.keys()].filter((k) => k !== 'rest_route').sort()
  return `${route.replace(/\d+/g, '#')}?${names.join('&')}`
}

for (const profile of ['A', 'B'] as const) {
  t.test(`profile ${profile}: every link in every answer answers`, async (t) => {
    const env: Record<string, string> = { CMS_DEPLOYMENT: profile, ...(profile === 'A' ? { CMS_ADMIN_URL: ADMIN } : {}) }
    const h = await gatewayApp({ env })
    t.teardown(h.close)
    const matrix = new Map(permissionMatrix(h.app.restRoutes, h.app.platform.services.roles).map((e) => [e.key, e.rows]))
    const p = await prober(h)
    /**
     * A route that takes no GET (`POST /batch/v1`): the index links every
     * route without variables, as the core's does, and GET answers
     * `rest_no_route` there; the route exists when OPTIONS names its methods.
     */
    const servedWithoutGet = async (url: URL, headers: Record<string, string>): Promise<boolean> => {
      const res = await h.app.inject({ method: 'OPTIONS', url: `${url.pathname}${url.search}`, headers })
      const body = res.statusCode === 200 ? JSON.parse(res.body) as { methods?: string[] } : {}
      return Array.isArray(body.methods) && body.methods.length > 0 && !body.methods.includes('GET')
    }
    const fetched = new Map<string, { url: string, from: string, status: number }>()
    const broken: string[] = []
    let answers = 0
    let links = 0
    const adminLinks = { count: 0, elsewhere: [] as string[] }
    for (const target of targetsOf(h.app)) {
      const c = matrix.get(target.key)?.[0]
      if (c === undefined) continue // the permission test fails such a route
      const { request, response } = await p.send(target, c)
      answers++
      if (request.method === 'DELETE') continue
      const found = new Set<string>()
      urlsInHeaders(response, found)
      if (String(response.headers['content-type'] ?? '').includes('json')) {
        try { urlsIn(JSON.parse(response.body), found, adminLinks) } catch { /* a body that is not JSON holds no links here */ }
      }
      links += found.size
      // A fresh administrator per answer's links: a write before may have removed the last one's password.
      const reader = found.size === 0 ? undefined : await createCaller(h.store, 'administrator')
      for (const link of found) {
        const url = new URL(link)
        const pattern = patternOf(url)
        if (fetched.has(pattern)) continue
        const res = await h.app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, headers: reader!.headers })
        fetched.set(pattern, { url: link, from: `${request.method} ${request.url}`, status: res.statusCode })
        if (res.statusCode === 404 && await servedWithoutGet(url, reader!.headers)) continue
        // A 503 naming an outside service the deployment does not configure is an answer (the route is there).
        const unconfigured = res.statusCode === 503 && res.body.includes('"rest_upstream_unconfigured"')
        if (res.statusCode === 404 || (res.statusCode >= 500 && !unconfigured)) broken.push(`${link} (from ${request.method} ${request.url}): ${res.statusCode} ${res.body.slice(0, 200)}`)
      }
    }
    t.comment(`profile ${profile}: ${answers} answers, ${links} links to the service, ${fetched.size} patterns fetched`)
    t.ok(answers > 100 && fetched.size > 20, 'the run answered and linked')
    t.same(broken, [], 'no link answers 404 or a server error')
    t.comment(`profile ${profile}: ${adminLinks.count} links to the admin front end (not fetched)`)
    // With CMS_ADMIN_URL the admin links point there (A: the builder's checklist, the plugin catalogue...); without it there are none.
    if (profile === 'A') t.ok(adminLinks.count > 0, 'admin links point at the configured front end')
    else t.equal(adminLinks.count, 0)
    t.same([...new Set(adminLinks.elsewhere)], [], 'no answer names an admin screen but under CMS_ADMIN_URL')
  })
}
