/**
 * hdrftr/v1 email-webhook (builder-family.md §7): the onboarding
 * newsletter opt-in. The subscriber's fields (`email`, `date`, `fname`,
 * `lname`, `isActive`, `domain`; from the query or the body, as the
 * product reads them) are checked, then forwarded as JSON to the
 * subscription service, the `hdrftr-subscription` upstream
 * (`CMS_UPSTREAM_HDRFTR_SUBSCRIPTION_URL`; unset: `503
 * rest_upstream_unconfigured` naming it, CONVENTIONS.md §3, which outranks
 * the note's "store locally"). Its 200/201/204 sets the
 * `hdrftr_subscription` option to `done` and answers `{"message":
 * "success"}`; any other status is `502 rest_upstream_error` with the
 * service's status in `data.upstream_status` and its message (the product:
 * `webhook_error` with that status), a timeout `504`. Nothing is stored
 * about the subscriber. Administrators only (`manage_options`).
 */
import { Type } from '@sinclair/typebox'
import { endpoint, handlerChecked, invalidParam, route, type RelativeRouteDecl, type RestRequest } from '@cms/rest'
import type { PackageApi, PackageOption } from '@cms/core'
import { mayManageSettings } from './access.js'
import { hdrftrErrors } from './errors.js'

export const SUBSCRIPTION_UPSTREAM = 'hdrftr-subscription'

export const SUBSCRIPTION_OPTION = Type.Union([Type.Literal(''), Type.Literal('done')])

export function declareSubscriptionOption (api: PackageApi): PackageOption<typeof SUBSCRIPTION_OPTION> {
  return api.option('hdrftr_subscription', SUBSCRIPTION_OPTION, { default: '', description: 'Whether the onboarding newsletter subscription was sent ("done").' })
}

// Statuses read back so the service's own message can be reported (everything that is not a success).
const FAILURES = Array.from({ length: 300 }, (_, i) => i + 300)
const SUCCESS = [200, 201, 204]
/** The address form the core accepts for users (one @, no spaces, a dotted domain). */
const EMAIL = /^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/

function text (req: RestRequest<any>, name: string, max: number, required = false): string {
  const v = req.params[name]
  if (v === undefined || v === null || v === '') {
    if (required) throw invalidParam(name, `${name} is required.`)
    return ''
  }
  if (typeof v !== 'string' || v.length > max) throw invalidParam(name, `${name} must be a string of at most ${max} characters.`)
  return v
}

function flag (req: RestRequest<any>, name: string): boolean {
  const v = req.params[name]
  if (v === undefined || v === null || v === '') return false
  if (typeof v === 'boolean') return v
  if (v === 'true' || v === '1' || v === 1) return true
  if (v === 'false' || v === '0' || v === 0) return false
  throw invalidParam(name, `${name} must be a boolean.`)
}

/** The service's message from an error answer (`message`, else `error`), bounded; "Unknown error" without one. */
function remoteMessage (body: Buffer): string {
  try {
    const answer = JSON.parse(body.toString('utf8')) as Record<string, unknown>
    const m = answer?.message ?? answer?.error
    if (typeof m === 'string' && m !== '') return m.slice(0, 300)
  } catch {}
  return 'Unknown error'
}

export function emailWebhookRoutes (api: PackageApi, subscription: PackageOption<typeof SUBSCRIPTION_OPTION>): RelativeRouteDecl[] {
  return [route({
    path: '/email-webhook',
    endpoints: [endpoint({
      methods: ['POST'],
      args: {
        email: handlerChecked('The address to subscribe.'),
        date: handlerChecked('The date of the subscription.'),
        fname: handlerChecked('First name.'),
        lname: handlerChecked('Last name.'),
        isActive: handlerChecked('Whether the subscription is active.'),
        domain: handlerChecked('The site\'s domain.')
      },
      summary: 'Subscribe to the onboarding newsletter (forwarded to the subscription service)',
      response: Type.Object({ message: Type.String() }),
      // An allowed probe may then meet the unconfigured subscription upstream (503).
      permission: mayManageSettings.probing({ body: { email: 'probe@example.com' } }),
      handler: async (req) => {
        const email = text(req, 'email', 254, true)
        if (!EMAIL.test(email)) throw invalidParam('email', 'email must be an e-mail address.')
        const subscriber = {
          email,
          date: text(req, 'date', 100),
          fname: text(req, 'fname', 200),
          lname: text(req, 'lname', 200),
          isActive: flag(req, 'isActive'),
          domain: text(req, 'domain', 253)
        }
        const service = api.upstream(SUBSCRIPTION_UPSTREAM)
        const res = await service.request('', { method: 'POST', json: subscriber, accept: FAILURES, maxBytes: 64 * 1024 })
        if (!SUCCESS.includes(res.status)) {
          throw hdrftrErrors.rest_upstream_error({ upstream: SUBSCRIPTION_UPSTREAM, upstream_status: res.status }, `Error in API response: ${remoteMessage(res.body)}`)
        }
        await subscription.set('done')
        return { message: 'success' }
      }
    })]
  })]
}
