/**
 * builder/v1 library/connect (builder-family.md §2.10): connects the
 * current administrator (`manage_options`) to the template library
 * service. POST exchanges the connect token with the library upstream
 * (`builder-library`: `CMS_UPSTREAM_BUILDER_LIBRARY_URL`; unset: `503
 * rest_upstream_unconfigured` naming it) and keeps the credentials it
 * answers (`client_id`, `access_token`...) sealed at rest (`api.secrets`)
 * in the user's meta; DELETE forgets them (no upstream needed).
 *
 * The exchange (the real product's is private): `POST {base}/connect`
 * with `{token, site_url, email}`; a 2xx answer with an `access_token`
 * string connects. An answer without one is `502 rest_upstream_error`
 * (the real product: 500 `library_not_connected`), nothing kept.
 */
import { Type } from '@sinclair/typebox'
import { created, secret, endpoint, kernelErrors, route, type RelativeRouteDecl, successObject } from '@cms/rest'
import { findUserById, type PackageApi } from '@cms/core'
import { mayManageOptions } from './access.js'
import { USER_KEYS, type UserState } from './user-state.js'

export const LIBRARY_UPSTREAM = 'builder-library'

export interface LibraryConnection { connected_at: number, client_id: string, sealed: string }

export function libraryConnectRoutes (api: PackageApi, state: UserState): RelativeRouteDecl[] {
  return [route({
    path: '/library/connect',
    endpoints: [
      endpoint({
        methods: ['POST'],
        args: { token: secret(Type.String({ description: 'The connect token from the library account dashboard.', minLength: 1, maxLength: 4096 })) },
        summary: 'Connect the current user to the template library',
        response: successObject({ message: Type.String() }),
        // An allowed probe may then meet the unconfigured library upstream (503).
        permission: mayManageOptions.probing({ body: { token: 'probe-token' } }),
        handler: async (req) => {
          const library = api.upstream(LIBRARY_UPSTREAM)
          const user = await findUserById(api.services.store, req.user.id)
          const res = await library.request('connect', { method: 'POST', json: { token: req.params.token, site_url: req.siteUrl, email: user?.email ?? '' } })
          const answer = res.json() as Record<string, unknown> | null
          if (typeof answer !== 'object' || answer === null || typeof answer.access_token !== 'string' || answer.access_token === '') {
            throw kernelErrors.rest_upstream_error({ upstream: LIBRARY_UPSTREAM }, 'The library service did not connect this site (its answer has no access token).')
          }
          const connection: LibraryConnection = {
            connected_at: Math.floor(Date.now() / 1000),
            client_id: typeof answer.client_id === 'string' ? answer.client_id : '',
            sealed: await api.secrets.seal(JSON.stringify(answer))
          }
          await state.set(req.user.id, USER_KEYS.library, connection)
          return created({ success: true, message: 'Connected successfully.' }, '/builder/v1/library/connect')
        }
      }),
      endpoint({
        methods: ['DELETE'],
        args: {},
        summary: 'Forget the current user\'s library connection',
        response: successObject({ message: Type.String() }),
        permission: mayManageOptions,
        handler: async (req) => {
          await state.remove(req.user.id, USER_KEYS.library)
          return { success: true, message: 'Disconnected successfully.' }
        }
      })
    ]
  })]
}
