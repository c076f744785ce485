/**
 * Errors of the package registry, declared once. Callers that answer a
 * route family's own wording (builder-one's `not_found`) match `err.code`.
 */
import { declareErrors, kernelErrors } from '@cms/rest'

export const registryErrors = {
  ...declareErrors({
    rest_invalid_package: { status: 400, message: 'The package is not a valid plugin or theme package.' },
    package_not_installed: { status: 404, message: 'The package is not installed.' },
    package_already_installed: { status: 409, message: 'The package is already installed.' },
    package_version_not_found: { status: 404, message: 'The package source does not offer this version.' },
    package_operation_in_progress: { status: 409, message: 'Another operation on this package is in progress; try again when it has finished.' },
    package_is_active: { status: 400, message: 'The package is active; deactivate it (or switch to another theme) before deleting it.' },
    package_theme_deactivate: { status: 400, message: 'A theme cannot be deactivated; activate another theme instead.' }
  }),
  rest_upstream_unconfigured: kernelErrors.rest_upstream_unconfigured,
  rest_upstream_error: kernelErrors.rest_upstream_error
}
