/** The services as the webhooks folder knows them: the content's, with webhook deliveries. */
import type { ContentServices } from '../content/services.js'
import type { WebhookService } from './service.js'

export interface WebhookServices extends ContentServices {
  /** Webhook deliveries (webhooks/service.ts): the listener's fan-out, the sending worker, the secrets and outbound client the routes share. */
  webhooks: WebhookService
}
