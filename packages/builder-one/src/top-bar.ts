/**
 * builder-one/v1 top bar (builder-family.md §6). Administrators only
 * (`manage_options`).
 *
 *   GET  top-bar/notifications  the notifications feed for an app and
 *        version, from the `builder-one-notifications` upstream
 *        (`CMS_UPSTREAM_BUILDER_ONE_NOTIFICATIONS_URL`: `GET {base}/notifications
 *        ?app_name&app_version`, answered with an array of objects; at most
 *        100 are passed on). Not configured: an empty list, as the real
 *        package answers when its feed is empty. A failed fetch is a 502.
 *   POST top-bar/feedback  forwarded to the connect service (`builder-one`:
 *        `POST {base}/feedback` with the fields, the site's URL and, when
 *        connected, its access token); 204 once accepted. Not configured:
 *        `503 rest_upstream_unconfigured`; refused or failed: `502
 *        rest_upstream_error` with the service's status (the real package:
 *        401 / 400, CONVENTIONS.md §3 outranks it).
 */
import { Type } from '@sinclair/typebox'
import { endpoint, RestResponse, route, type RelativeRouteDecl } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import { mayManageOptions } from './access.js'
import { CONNECT_UPSTREAM } from './connect.js'
import { oneErrors } from './errors.js'
import { accessTokenOf, type OneState } from './state.js'

export const NOTIFICATIONS_UPSTREAM = 'builder-one-notifications'
const MAX_NOTIFICATIONS = 100

export function topBarRoutes (api: PackageApi, state: OneState): RelativeRouteDecl[] {
  return [
    route({
      path: '/top-bar/notifications',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {
          app_name: Type.String({ description: 'The app asking (its notifications only).', maxLength: 100 }),
          app_version: Type.String({ description: 'The app\'s version.', maxLength: 50 })
        },
        summary: 'The notifications for an app and version',
        response: Type.Array(Type.Object({}, { additionalProperties: true, description: 'A notification, as the notifications feed gives it.' }), { maxItems: 100 }),
        permission: mayManageOptions.probing({ query: { app_name: 'probe', app_version: '1.0.0' } }),
        handler: async (req) => {
          if (!api.services.upstreams.configured(NOTIFICATIONS_UPSTREAM)) return []
          const res = await api.upstream(NOTIFICATIONS_UPSTREAM).request('notifications', { query: { app_name: req.params.app_name, app_version: req.params.app_version }, maxBytes: 1024 * 1024 })
          const items = res.json()
          if (!Array.isArray(items) || !items.every((i) => typeof i === 'object' && i !== null && !Array.isArray(i))) {
            throw oneErrors.rest_upstream_error({ upstream: NOTIFICATIONS_UPSTREAM }, 'The notifications feed did not answer a list of notifications.')
          }
          return items.slice(0, MAX_NOTIFICATIONS)
        }
      })]
    }),
    route({
      path: '/top-bar/feedback',
      endpoints: [endpoint({
        methods: ['POST'],
        args: {
          product: Type.String({ description: 'The product the feedback is about.', maxLength: 100 }),
          subject: Type.String({ description: 'The feedback\'s subject.', maxLength: 200 }),
          title: Type.String({ description: 'Its title.', maxLength: 200 }),
          description: Type.String({ description: 'The feedback itself.', maxLength: 10_000 }),
          countryCode: Type.Optional(Type.String({ description: 'The sender\'s country (ISO 3166-1 alpha-2).', maxLength: 2 }))
        },
        summary: 'Send feedback to the connect service',
        response: Type.Null({ description: 'No content.' }),
        status: 204,
        permission: mayManageOptions.probing({ body: { product: 'probe', subject: 'probe', title: 'probe', description: 'probe' } }),
        handler: async (req) => {
          const client = api.upstream(CONNECT_UPSTREAM)
          const c = await state.connection.get()
          const token = await accessTokenOf(api.secrets, c)
          const { product, subject, title, description, countryCode } = req.params
          await client.request('feedback', {
            method: 'POST',
            json: { product, subject, title, description, ...(countryCode === undefined ? {} : { countryCode }), site_url: req.siteUrl !== '' ? req.siteUrl : req.baseUrl, ...(token === '' ? {} : { access_token: token }) }
          })
          return new RestResponse(null, 204)
        }
      })]
    })
  ]
}
