/**
 * Users, application passwords and authentication: the cms/v2 users routes,
 * the kernel's authenticator, and (separately registered by the gateway)
 * the authorization and sign-in pages.
 */
import type { RelativeRouteDecl } from '@cms/rest'
import type { UserServices as Services } from './services.js'
import { userRoutesOf } from './users-routes.js'
import { applicationPasswordRoutesOf } from './app-password-routes.js'

export function userRoutes (services: Services): RelativeRouteDecl[] {
  return [...userRoutesOf(services), ...applicationPasswordRoutesOf(services)]
}

export { authenticator, authenticateBasic } from './authenticate.js'
export { authorizePage, type AuthorizePageOptions } from './authorize-page.js'
export type { UserContentHandler } from './authors.js'
export { chunkPassword } from './passwords.js'
