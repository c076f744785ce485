/**
 * Who may call builder-one/v1 (builder-family.md §6, CONVENTIONS.md §4): a
 * capability, else the route's error with 401 for an anonymous caller and
 * 403 for a signed-in one. Plugin activation answers the package's own
 * pair: `unauthorized` (401) and `forbidden` (403).
 */
import { can, check, who, type ErrorFactory, type Permission, type RestRequest } from '@cms/rest'
import { oneErrors } from './errors.js'

/** `capability`, else `error` as 401/403. */
export function needs (capability: string, error: ErrorFactory, message?: string): Permission {
  return can(capability, { error, message, why: `§6 ${capability}` })
}

/** Both checks must pass (`b` only when `when(req)`; the first failure is answered); the matrix row is `a`'s (every capability here is an administrator's). */
export function both (a: Permission, b: Permission, when: (req: RestRequest<any>) => boolean = () => true): Permission {
  return check(async (req) => {
    const first = await a.check(req)
    if (first !== true || !when(req)) return first
    return await b.check(req)
  }, ...a.cases)
}

export const mayManageOptions = needs('manage_options', oneErrors.rest_forbidden)

/** Plugin activation and deactivation: `manage_options`, answered `unauthorized` / `forbidden`. */
export const mayManagePlugins = check((req) => {
  if (req.user.can('manage_options')) return true
  return req.user.id === 0 ? oneErrors.unauthorized() : oneErrors.forbidden(undefined, 'Sorry, you are not allowed to manage plugins for this site.')
}, who.can('manage_options', '§6 plugin activation: manage_options (unauthorized / forbidden)'))
