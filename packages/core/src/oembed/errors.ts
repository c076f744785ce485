/**
 * Errors of the oembed/1.0 namespace, as the core words them.
 */
import { declareErrors } from '@cms/rest'

export const oembedErrors = declareErrors({
  oembed_invalid_url: { status: 404, message: 'Not Found' },
  rest_forbidden: { status: 401, message: 'Sorry, you are not allowed to make proxied oEmbed requests.' }
})
