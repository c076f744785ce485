/**
 * Errors of the oembed/1.0 namespace, as the core words them.
 */
import { declareErrors, kernelErrors, reworded } from '@cms/rest'

export const oembedErrors = {
  ...declareErrors({
    oembed_invalid_url: { status: 404, message: 'Not Found' }
  }),
  // Declared once in the kernel's catalogue, with the proxy's message.
  rest_forbidden: reworded(kernelErrors.rest_forbidden, 'Sorry, you are not allowed to make proxied oEmbed requests.')
}
