/**
 * assistant/v1 dev mode, "test mode" (seo-rollback-assistant-addons.md
 * §3.4): `POST dev-mode {enabled}` sets or expires the HttpOnly cookie
 * `assistant_snippet_dev_mode` (Secure under https, a year), whose value
 * binds the user id, a SHA-256 of the client's address and the expiry with
 * an HMAC-SHA256 under a stored key (keys.ts); `GET dev-mode/status` is
 * true only for that user from that address before the expiry with a
 * matching HMAC, and renews the cookie. "Manage snippets" (`manage_options`).
 */
import { createHash } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import { endpoint, RestResponse, route, type RestRequest, type RelativeRouteDecl } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import { mayManageSnippets } from './access.js'
import { assistantErrors } from './errors.js'
import { hmacKey } from './keys.js'

export const DEV_MODE_COOKIE = 'assistant_snippet_dev_mode'
const YEAR_S = 365 * 24 * 3600

const ipHash = (ip: string): string => createHash('sha256').update(ip).digest('hex')

function cookieOf (req: RestRequest<any>): string | undefined {
  const header = req.headers.cookie
  const all = Array.isArray(header) ? header.join('; ') : header ?? ''
  for (const part of all.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === DEV_MODE_COOKIE) return part.slice(eq + 1).trim()
  }
  return undefined
}

export function devModeRoutes (api: PackageApi): RelativeRouteDecl[] {
  const key = hmacKey(api, 'assistant_dev_mode_key', 'The key dev-mode cookies are signed with (sealed).')

  const setCookie = (req: RestRequest<any>, value: string, maxAge: number): string =>
    `${DEV_MODE_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; Expires=${new Date(Date.now() + maxAge * 1000).toUTCString()}; HttpOnly; SameSite=Lax${req.baseUrl.startsWith('https:') ? '; Secure' : ''}`

  async function issue (req: RestRequest<any>): Promise<{ cookie: string, expiry: number }> {
    const expiry = Math.floor(Date.now() / 1000) + YEAR_S
    const subject = `${req.user.id}|${ipHash(req.ip)}|${expiry}`
    const value = `${req.user.id}.${ipHash(req.ip)}.${expiry}.${await key.sign(subject)}`
    return { cookie: setCookie(req, value, YEAR_S), expiry }
  }

  async function valid (req: RestRequest<any>): Promise<boolean> {
    const m = /^(\d{1,12})\.([0-9a-f]{64})\.(\d{1,12})\.([A-Za-z0-9_-]{1,100})$/.exec(cookieOf(req) ?? '')
    if (m === null) return false
    const [, user, ip, expiry, mac] = m
    if (Number(user) !== req.user.id || ip !== ipHash(req.ip) || Number(expiry) <= Date.now() / 1000) return false
    return await key.verify(`${user}|${ip}|${expiry}`, mac!)
  }

  return [
    route({
      path: '/dev-mode',
      endpoints: [endpoint({
        methods: ['POST'],
        args: { enabled: Type.Boolean({ description: 'Whether this browser sees the snippets\' dev files.' }) },
        summary: 'Turn test mode on or off for this browser',
        response: Type.Object({ success: Type.Boolean(), message: Type.String(), enabled: Type.Boolean(), expiry: Type.Optional(Type.Integer({ description: 'When on: Unix seconds.' })) }),
        permission: mayManageSnippets.because('§3.4 dev mode: manage snippets').probing({ body: { enabled: false } }),
        handler: async (req) => {
          if (!req.params.enabled) {
            return new RestResponse({ success: true, message: 'Test mode disabled.', enabled: false }, 200, { 'Set-Cookie': setCookie(req, '', 0) })
          }
          if (req.user.id === 0 || req.ip === '') throw assistantErrors.session_creation_failed()
          const { cookie, expiry } = await issue(req)
          return new RestResponse({ success: true, message: 'Test mode enabled.', enabled: true, expiry }, 200, { 'Set-Cookie': cookie })
        }
      })]
    }),
    route({
      path: '/dev-mode/status',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'Whether test mode is on for this browser (a valid cookie is renewed)',
        response: Type.Object({ enabled: Type.Boolean() }),
        permission: mayManageSnippets.because('§3.4 dev mode status: manage snippets'),
        handler: async (req) => {
          if (!await valid(req)) return { enabled: false }
          const { cookie } = await issue(req)
          return new RestResponse({ enabled: true }, 200, { 'Set-Cookie': cookie })
        }
      })]
    })
  ]
}
