/**
 * nps-survey/v1 (builder-family.md §5): the satisfaction survey a product
 * shows its administrators. `rating` sends the rating to the metrics
 * service (the `nps-survey` upstream: `CMS_UPSTREAM_NPS_SURVEY_URL`, with
 * `_TOKEN` and `_TIMEOUT_MS`), then records it and retires the survey;
 * without that setting it is `503 rest_upstream_unconfigured` naming it
 * (CONVENTIONS.md §3, which outranks the note's "record locally"), and a
 * failed send is `502 rest_upstream_error` / `504 rest_upstream_timeout`
 * with nothing recorded. `dismiss-nps-survey` is local: it postpones the
 * survey and retires it from the second dismissal on. Both need
 * `manage_options` and answer `{"success":true,"data":{"status":true}}`;
 * their body fields are not declared (the reference lists none) and are
 * checked here, before anything is sent.
 */
import { Type } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import { can, endpoint, handlerChecked, route, type RestError, type RestRequest, type RouteDecl, successObject } from '@cms/rest'
import { findUserById, getUserMetas, type PackageApi } from '@cms/core'
import { builderErrors } from './errors.js'
import { npsSurveys } from './schema.js'

const NS = 'nps-survey/v1'
const SUCCESS = { success: true, data: { status: true } }

function invalid (name: string, why: string): RestError {
  return builderErrors.rest_invalid_param({ params: { [name]: why } }, `Invalid parameter(s): ${name}`)
}

/** `plugin_slug`: the product whose survey this is (`header-footer-builder`). */
function pluginSlug (req: RestRequest): string {
  const v = req.params.plugin_slug
  if (typeof v !== 'string' || !/^[a-z0-9_-]{1,100}$/.test(v)) throw invalid('plugin_slug', 'plugin_slug must be a product slug of lowercase letters, digits, - and _.')
  return v
}

/** An integer in [min, max] given as a number or a string of digits. */
function integerParam (req: RestRequest, name: string, min: number, max: number, fallback?: number): number {
  const v = req.params[name]
  if (v === undefined && fallback !== undefined) return fallback
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,10}$/.test(v.trim()) ? Number(v.trim()) : NaN
  if (!Number.isInteger(n) || n < min || n > max) throw invalid(name, `${name} must be an integer from ${min} to ${max}.`)
  return n
}

function text (req: RestRequest, name: string, max: number): string {
  const v = req.params[name] ?? ''
  if (typeof v !== 'string' || v.length > max) throw invalid(name, `${name} must be a string of at most ${max} characters.`)
  return v
}

const mayManage = can('manage_options', { error: builderErrors.gt_rest_cannot_access, why: '§5 nps-survey: manage_options' })

/** The upstream the ratings go to (the product's metrics server). */
export const NPS_UPSTREAM = 'nps-survey'

export function npsSurveyRoutes (api: PackageApi): RouteDecl[] {
  const { store } = api.services
  const rating = route({
    namespace: NS,
    path: `/${NS}/rating`,
    endpoints: [endpoint({
      methods: ['POST'],
      args: {
        plugin_slug: handlerChecked('The product whose survey this is.'),
        rating: handlerChecked('The score, 0 to 10.'),
        comment: handlerChecked('A comment.')
      },
      summary: 'Record a rating of a product and retire its survey',
      response: successObject({ data: Type.Object({ status: Type.Boolean() }) }),
      // An allowed probe may then meet the unconfigured metrics upstream (503).
      permission: mayManage.probing({ body: { plugin_slug: 'probe', rating: 9 } }),
      handler: async (req) => {
        const slug = pluginSlug(req)
        const score = integerParam(req, 'rating', 0, 10)
        const comment = text(req, 'comment', 5000)
        const metrics = api.upstream(NPS_UPSTREAM)
        const user = await findUserById(store, req.user.id)
        const names = await getUserMetas(store, req.user.id, ['first_name', 'last_name'])
        // The fields the product sends (§5); the remote's 200/201 is success, anything else a 502.
        await metrics.request('', {
          method: 'POST',
          json: {
            rating: score,
            comment,
            email: user?.email ?? '',
            first_name: typeof names.first_name === 'string' ? names.first_name : '',
            last_name: typeof names.last_name === 'string' ? names.last_name : '',
            source: slug,
            plugin_slug: slug
          }
        })
        await store.db.insert(npsSurveys)
          .values({ pluginSlug: slug, dismissCount: 0, dismissPermanently: true, dismissStep: '', rating: score, comment, ratedBy: req.user.id })
          .onConflictDoUpdate({
            target: npsSurveys.pluginSlug,
            set: { dismissCount: 0, dismissPermanently: true, dismissStep: '', rating: score, comment, ratedBy: req.user.id }
          })
        return SUCCESS
      }
    })]
  })

  const dismiss = route({
    namespace: NS,
    path: `/${NS}/dismiss-nps-survey`,
    endpoints: [endpoint({
      methods: ['POST'],
      args: {
        plugin_slug: handlerChecked('The product whose survey this is.'),
        dismiss_timespan: handlerChecked('Seconds until the survey shows again.'),
        current_step: handlerChecked('The survey step the user dismissed.')
      },
      summary: "Postpone a product's survey (retired from the second dismissal)",
      response: successObject({ data: Type.Object({ status: Type.Boolean() }) }),
      permission: mayManage.probing({ body: { plugin_slug: 'probe', dismiss_timespan: 60 } }),
      handler: async (req) => {
        const slug = pluginSlug(req)
        const timespan = integerParam(req, 'dismiss_timespan', 0, 2_147_483_647, 0)
        const step = text(req, 'current_step', 100)
        const now = Math.floor(Date.now() / 1000)
        // One statement: two dismissals at once both count.
        await store.db.insert(npsSurveys)
          .values({ pluginSlug: slug, dismissCount: 1, dismissPermanently: false, dismissStep: step, dismissTime: now, dismissTimespan: timespan })
          .onConflictDoUpdate({
            target: npsSurveys.pluginSlug,
            set: {
              dismissCount: sql`${npsSurveys.dismissCount} + 1`,
              dismissPermanently: sql`${npsSurveys.dismissPermanently} or ${npsSurveys.dismissCount} + 1 >= 2`,
              dismissStep: step,
              dismissTime: now,
              dismissTimespan: timespan
            }
          })
        return SUCCESS
      }
    })]
  })
  return [rating, dismiss]
}
