/**
 * builder-one/v1 connect (builder-family.md §6): the site's one connection
 * to the connect service, the `builder-one` upstream
 * (`CMS_UPSTREAM_BUILDER_ONE_URL`; unset: `503 rest_upstream_unconfigured`
 * naming it; a failed exchange `502 rest_upstream_error`, nothing changed).
 * Administrators only (`manage_options`, `rest_forbidden`).
 *
 *   authorize      `clearSession` wipes the stored session first; otherwise
 *                  an existing connection is `403 forbidden`. Registers the
 *                  site as a client when it has none, then answers
 *                  `{success: true, data: <authorize URL>}` on the service,
 *                  with a fresh single-use `state` (valid 30 minutes)
 *   disconnect     tells the service (when connected), rolls every migrated
 *                  plugin back and forgets the session: `{success, data: []}`
 *   switch-domain  no client: `400 bad_request` "Client ID not found"; else
 *                  tells the service the site's URL: `{success, data:
 *                  {message: 'Domain updated!'}}`
 *   deactivate     releases the licence seat: `{success, data: []}`; not
 *                  connected: `400 bad_request`
 *
 * The browser comes back to `GET /cms-admin/builder-one/connect?code&state`
 * (the redirect URI); a matching unexpired state has the code exchanged
 * for the tokens, which connects the site. The exchanges (the real
 * service's are private):
 *
 *   POST {base}/clients            {app, site_url, redirect_uri, scopes} -> {client_id, client_secret}
 *   GET  {base}/authorize          ?response_type=code&client_id&redirect_uri&scope&state (the browser's)
 *   POST {base}/token              {grant_type: 'authorization_code', code, client_id, client_secret, redirect_uri} -> {access_token, ...}
 *   POST {base}/disconnect         {client_id, access_token}
 *   POST {base}/domain             {client_id, site_url}
 *   POST {base}/license/deactivate {client_id, access_token}
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { endpoint, route, RestError, type RelativeRouteDecl, type RestRequest } from '@cms/rest'
import type { PackageApi, UpstreamClient } from '@cms/core'
import { mayManageOptions } from './access.js'
import { oneErrors } from './errors.js'
import { accessTokenOf, NO_CONNECTION, type Connection, type OneState } from './state.js'

export const CONNECT_UPSTREAM = 'builder-one'
export const CALLBACK_PATH = '/cms-admin/builder-one/connect'
const SCOPES = 'openid offline_access share_usage_data'
const STATE_TTL_S = 30 * 60

const now = (): number => Math.floor(Date.now() / 1000)

function siteOf (req: Pick<RestRequest, 'siteUrl' | 'baseUrl'>): string {
  return req.siteUrl !== '' ? req.siteUrl : req.baseUrl
}

function answerOf (res: { json: () => unknown }, needs: string): Record<string, unknown> {
  const body = res.json()
  if (typeof body !== 'object' || body === null || typeof (body as Record<string, unknown>)[needs] !== 'string' || (body as Record<string, string>)[needs] === '') {
    throw oneErrors.rest_upstream_error({ upstream: CONNECT_UPSTREAM }, `The connect service's answer has no ${needs}.`)
  }
  return body as Record<string, unknown>
}

export interface Connect {
  routes: () => RelativeRouteDecl[]
  /** Exchanges an authorization code for the tokens (the browser's return): the site is connected after. */
  complete: (code: string, state: string) => Promise<void>
}

/** authorize: the URL to send the user to; switch-domain: a message; disconnect and deactivate: an empty list. */
const CONNECT_ANSWER = Type.Object({ success: Type.Boolean(), data: Type.Union([Type.String(), Type.Object({ message: Type.String() }), Type.Array(Type.Unknown(), { maxItems: 0 })]) })

export function connect (api: PackageApi, state: OneState): Connect {
  const service = (): UpstreamClient => api.upstream(CONNECT_UPSTREAM)

  const accessToken = async (c: Connection): Promise<string> => await accessTokenOf(api.secrets, c)

  const complete = async (code: string, given: string): Promise<void> => {
    const c = await state.connection.get()
    const expected = Buffer.from(c.state)
    const sent = Buffer.from(given)
    if (c.state === '' || c.state_expires < now() || expected.length !== sent.length || !timingSafeEqual(expected, sent)) {
      throw oneErrors.bad_request(undefined, 'The authorization state does not match a pending authorization (it may have expired).')
    }
    const res = await service().request('token', {
      method: 'POST',
      json: { grant_type: 'authorization_code', code, client_id: c.client_id, client_secret: await api.secrets.open(c.client_secret), redirect_uri: c.redirect_uri }
    })
    const tokens = answerOf(res, 'access_token')
    const sealed = await api.secrets.seal(JSON.stringify(tokens))
    await state.update(state.connection, (current) => ({ ...current, state: '', state_expires: 0, redirect_uri: '', tokens: sealed, connected_at: now(), license_active: true }))
  }

  const routes = (): RelativeRouteDecl[] => {
    const post = (path: string, summary: string, args: Record<string, any>, handler: (req: RestRequest<any>) => Promise<unknown>): RelativeRouteDecl =>
      route({ path, endpoints: [endpoint({ methods: ['POST'], args, summary, response: CONNECT_ANSWER, permission: mayManageOptions, handler })] })

    return [
      post('/connect/authorize', 'Start connecting the site: the authorize URL on the connect service', {
        clearSession: Type.Boolean({ description: 'Forget the stored session first.', default: false })
      }, async (req) => {
        const clear = req.params.clearSession === true
        if (!clear && await state.connected()) throw oneErrors.forbidden(undefined, 'You are already connected')
        const client = service()
        const site = siteOf(req)
        const redirectUri = `${site}${CALLBACK_PATH}`
        let c = clear ? NO_CONNECTION : await state.connection.get()
        if (c.client_id === '') {
          const res = await client.request('clients', { method: 'POST', json: { app: 'builder-one', site_url: site, redirect_uri: redirectUri, scopes: SCOPES } })
          const registered = answerOf(res, 'client_id')
          const secret = typeof registered.client_secret === 'string' ? registered.client_secret : ''
          c = { ...NO_CONNECTION, client_id: String(registered.client_id), client_secret: await api.secrets.seal(secret) }
        }
        const pending = randomBytes(24).toString('hex')
        const next: Connection = { ...c, state: pending, state_expires: now() + STATE_TTL_S, redirect_uri: redirectUri }
        await state.update(state.connection, () => next)
        if (clear) await state.update(state.migrated, () => [])
        const url = new URL('authorize', client.baseUrl)
        url.search = new URLSearchParams({ response_type: 'code', client_id: next.client_id, redirect_uri: redirectUri, scope: SCOPES, state: pending }).toString()
        return { success: true, data: url.href }
      }),
      post('/connect/disconnect', 'Disconnect the site (its migrated plugins rolled back)', {}, async () => {
        const client = service()
        const c = await state.connection.get()
        const token = await accessToken(c)
        if (token !== '') await client.request('disconnect', { method: 'POST', json: { client_id: c.client_id, access_token: token } })
        await state.update(state.migrated, () => [])
        await state.connection.reset()
        return { success: true, data: [] }
      }),
      post('/connect/switch-domain', 'Tell the connect service the site\'s URL changed', {}, async (req) => {
        const client = service()
        const c = await state.connection.get()
        if (c.client_id === '') throw oneErrors.bad_request(undefined, 'Client ID not found')
        await client.request('domain', { method: 'POST', json: { client_id: c.client_id, site_url: siteOf(req) } })
        return { success: true, data: { message: 'Domain updated!' } }
      }),
      post('/connect/deactivate', 'Release the site\'s licence seat', {}, async () => {
        const client = service()
        const c = await state.connection.get()
        const token = await accessToken(c)
        if (token === '') throw oneErrors.bad_request(undefined, 'The site is not connected.')
        await client.request('license/deactivate', { method: 'POST', json: { client_id: c.client_id, access_token: token } })
        await state.update(state.connection, (current) => ({ ...current, license_active: false }))
        return { success: true, data: [] }
      })
    ]
  }

  return { routes, complete }
}

/**
 * The redirect URI the connect service sends the browser back to. Its
 * `state` must be the pending authorization's (single use, 30 minutes):
 * that is what ties the code to an administrator's authorize call.
 */
export function connectCallback (app: FastifyInstance, connector: Connect): void {
  app.get(CALLBACK_PATH, async (request, reply) => {
    const q = request.query as Record<string, unknown>
    const code = typeof q.code === 'string' ? q.code : ''
    const given = typeof q.state === 'string' ? q.state : ''
    reply.header('cache-control', 'no-store').type('text/html; charset=utf-8')
    if (code === '' || code.length > 4096 || given === '' || given.length > 200) {
      return await reply.code(400).send('<!doctype html><title>Connect</title><p>The connect service sent no code.</p>')
    }
    try {
      await connector.complete(code, given)
    } catch (err) {
      const status = err instanceof RestError ? err.status : 500
      if (status >= 500 && !(err instanceof RestError)) request.log.error({ err }, 'connect callback failed')
      return await reply.code(status).send(`<!doctype html><title>Connect</title><p>The site could not be connected: ${escapeHtml(err instanceof RestError ? err.message : 'an internal error occurred')}</p>`)
    }
    return await reply.send('<!doctype html><title>Connect</title><p>The site is connected. You can close this page.</p>')
  })
}

function escapeHtml (s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
