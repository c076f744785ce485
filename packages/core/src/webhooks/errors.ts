/**
 * Every error of the webhook routes. Bad arguments are the kernel's
 * `rest_invalid_param` (the schema's, or `invalidParam` for the URL check).
 */
import { declareErrors } from '@cms/rest'

export const webhookErrors = declareErrors({
  rest_webhook_invalid_id: { status: 404, message: 'Invalid webhook ID.' },
  rest_webhook_delivery_invalid_id: { status: 404, message: 'Invalid webhook delivery ID.' },
  rest_webhook_invalid_page_number: { status: 400, message: 'The page number requested is larger than the number of pages available.' },
  rest_webhook_delivery_pending: { status: 409, message: 'The delivery is still pending: it is sent again without a replay.' }
})
