/**
 * Errors of the builder namespaces, declared once. Where the real product
 * answers a 500 or a 200 with `{"success": false}` for a client's mistake,
 * these are the 4xx the evident intent calls for (CONVENTIONS.md §3).
 */
import { declareErrors, kernelErrors } from '@cms/rest'

export const builderErrors = {
  ...declareErrors({
    gt_rest_cannot_access: { status: 401, message: 'Sorry, you are not allowed to do that.' },
    global_not_found: { status: 404, message: 'The Global value you are trying to use is not available.' },
    global_is_system: { status: 400, message: 'A system global cannot be deleted; change its value instead.' },
    invalid_title: { status: 400, message: 'Invalid title' },
    rest_invalid_step_id: { status: 404, message: 'Invalid step id' },
    post_type_not_found: { status: 400, message: 'The post type does not exist.' },
    post_type_not_allowed: { status: 403, message: 'Sorry, you are not allowed to create content of this type.' },
    not_a_builder_document: { status: 404, message: 'The post is not a builder document.' },
    rest_post_invalid_id: { status: 404, message: 'Invalid post ID.' },
    invalid_method: { status: 404, message: 'No item exists at this address; the collection has no item route.' }
  }),
  // Declared once in the kernel's catalogue.
  rest_invalid_param: kernelErrors.rest_invalid_param,
  rest_forbidden: kernelErrors.rest_forbidden
}
