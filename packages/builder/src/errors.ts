/**
 * Errors of the builder namespaces, declared once.
 */
import { declareErrors, kernelErrors } from '@cms/rest'

export const builderErrors = {
  ...declareErrors({
    gt_rest_cannot_access: { status: 401, message: 'Sorry, you are not allowed to do that.' }
  }),
  // Declared once in the kernel's catalogue.
  rest_invalid_param: kernelErrors.rest_invalid_param
}
