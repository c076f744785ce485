/**
 * Errors of the builder namespaces, declared once.
 */
import { declareErrors } from '@cms/rest'

export const builderErrors = declareErrors({
  gt_rest_cannot_access: { status: 401, message: 'Sorry, you are not allowed to do that.' },
  rest_invalid_param: { status: 400, message: 'Invalid parameter(s).' }
})
