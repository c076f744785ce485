/**
 * Errors of hdrftr/v1, declared once (builder-family.md §7). The real
 * product answers 403 to every caller without `manage_options`; this
 * service answers 401 to an anonymous one (CONVENTIONS.md §3, §4).
 */
import { declareErrors, kernelErrors } from '@cms/rest'

export const hdrftrErrors = {
  ...declareErrors({
    hdrftr_rest_not_allowed: { status: 403, message: 'Sorry, you are not authorized to perform this action.' },
    rest_cannot_view: { status: 401, message: 'Sorry, you are not allowed to view the learning chapters.' },
    invalid_step: { status: 400, message: 'Invalid chapter or step.' },
    invalid_params: { status: 400, message: 'Invalid parameters.' }
  }),
  // Declared once in the kernel's catalogue.
  rest_forbidden: kernelErrors.rest_forbidden,
  rest_upstream_error: kernelErrors.rest_upstream_error
}
