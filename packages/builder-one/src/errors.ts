/**
 * Errors of builder-one/v1 (builder-family.md §6): the package's own codes
 * (`bad_request`, `unauthorized`, `forbidden`, `not_found`, `conflict`,
 * `migration_exception`) and the core's plugin-route codes. Where the real
 * package answers a 500 for a client's mistake or an outside failure, this
 * service answers the 4xx or the upstream 502/503 (CONVENTIONS.md §3).
 */
import { declareErrors, kernelErrors } from '@cms/rest'

export const oneErrors = {
  ...declareErrors({
    bad_request: { status: 400, message: 'Bad request.' },
    unauthorized: { status: 401, message: 'Sorry, you are not allowed to manage plugins for this site.' },
    forbidden: { status: 403, message: 'Sorry, you are not allowed to do that.' },
    not_found: { status: 404, message: 'Not found.' },
    conflict: { status: 409, message: 'Conflict.' },
    migration_exception: { status: 422, message: 'Plugin is already connected.' },
    rest_cannot_view_plugins: { status: 401, message: 'Sorry, you are not allowed to manage plugins for this site.' },
    rest_cannot_install_plugin: { status: 401, message: 'Sorry, you are not allowed to install plugins on this site.' },
    rest_cannot_activate_plugin: { status: 401, message: 'Sorry, you are not allowed to activate plugins on this site.' },
    rest_cannot_update_plugin: { status: 401, message: 'Sorry, you are not allowed to update plugins for this site.' }
  }),
  // Declared once in the kernel's catalogue.
  rest_forbidden: kernelErrors.rest_forbidden,
  rest_upstream_error: kernelErrors.rest_upstream_error
}
