/**
 * Errors of seo/v1, declared once, in the `{code, message, data: {status}}`
 * shape even where the real product answers `{"error": ...}` or HTTP 200
 * with `success: false` (CONVENTIONS.md §3).
 */
import { declareErrors, kernelErrors } from '@cms/rest'

export const seoErrors = {
  ...declareErrors({
    seo_error_indexing: { status: 500, message: 'The indexing failed.' }
  }),
  rest_invalid_param: kernelErrors.rest_invalid_param,
  rest_forbidden: kernelErrors.rest_forbidden
}
