/**
 * Who may call builder-one/v1 (builder-family.md §6, CONVENTIONS.md §4): a
 * capability, else the route's error with 401 for an anonymous caller and
 * 403 for a signed-in one. Plugin activation answers the package's own
 * pair: `unauthorized` (401) and `forbidden` (403).
 */
import { denied, type ErrorFactory, type RestError, type RestRequest } from '@cms/rest'
import { oneErrors } from './errors.js'

export type Check = (req: RestRequest<any>) => true | RestError

/** `capability` (and `also` when `when(req)`), else `error` as 401/403. */
export function needs (capability: string, error: ErrorFactory, message?: string): Check {
  return (req) => req.user.can(capability) ? true : denied(error(undefined, message), req.user.id)
}

/** Both checks must pass (the first failure is answered). */
export function both (a: Check, b: Check, when: (req: RestRequest<any>) => boolean = () => true): Check {
  return (req) => {
    const first = a(req)
    if (first !== true || !when(req)) return first
    return b(req)
  }
}

export const mayManageOptions = needs('manage_options', oneErrors.rest_forbidden)

/** Plugin activation and deactivation: `manage_options`, answered `unauthorized` / `forbidden`. */
export const mayManagePlugins: Check = (req) => {
  if (req.user.can('manage_options')) return true
  return req.user.id === 0 ? oneErrors.unauthorized() : oneErrors.forbidden(undefined, 'Sorry, you are not allowed to manage plugins for this site.')
}
