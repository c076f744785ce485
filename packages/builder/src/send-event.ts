/**
 * builder/v1 send-event (builder-family.md §2.11): the editor's usage
 * events. The real product refuses everyone (a TODO); here administrators
 * (`manage_options`) record them. POST stores `event_data` in a table
 * capped at EVENTS_CAP rows (the oldest go, in the same transaction) and
 * forwards it to the events upstream (`builder-events`:
 * `CMS_UPSTREAM_BUILDER_EVENTS_URL`) only when one is configured and the
 * site allows tracking (`builder_allow_tracking`); a failed forward is a
 * 502/504 and nothing is stored. GET lists the recorded events, newest
 * first, paged (`page`, `per_page`; `context` and `search` are accepted and
 * change nothing).
 */
import { desc, sql } from 'drizzle-orm'
import { Type } from '@sinclair/typebox'
import { checkPage, declareErrors, endpoint, invalidParam, pageHeaders, RestResponse, route, type RelativeRouteDecl, successObject } from '@cms/rest'
import type { PackageApi, PackageOption } from '@cms/core'
import type { TBoolean } from '@sinclair/typebox'
import { mayManageOptions } from './access.js'
import { indexParams } from './favorites.js'
import { builderEvents } from './schema.js'

export const EVENTS_CAP = 1000
export const EVENTS_UPSTREAM = 'builder-events'
/** The largest event kept (its JSON), so the table stays small. */
const EVENT_MAX_BYTES = 64 * 1024

const errors = declareErrors({
  builder_events_invalid_page_number: { status: 400, message: 'The page number requested is larger than the number of pages available.' }
})

export function sendEventRoutes (api: PackageApi, tracking: PackageOption<TBoolean>): RelativeRouteDecl[] {
  const { store } = api.services
  return [route({
    path: '/send-event',
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: indexParams(),
        summary: 'The recorded editor events, newest first',
        response: Type.Array(Type.Object({ id: Type.Integer(), event_data: Type.Unknown({ description: 'The event as sent.' }), user_id: Type.Integer(), created_at: Type.String({ description: 'UTC, `YYYY-MM-DDTHH:MM:SS`.' }) })),
        permission: mayManageOptions.because('§2.11 events: manage_options (the real product refuses everyone)'),
        handler: async (req) => {
          const [{ n }] = await store.execute<{ n: number }>(sql`select count(*)::int as n from builder_events`) as [{ n: number }]
          const info = { total: n, perPage: req.params.per_page, page: req.params.page }
          checkPage(info, errors.builder_events_invalid_page_number)
          const rows = await store.db.select().from(builderEvents).orderBy(desc(builderEvents.id)).limit(req.params.per_page).offset((req.params.page - 1) * req.params.per_page)
          const body = rows.map((r) => ({ id: r.id, event_data: r.eventData, user_id: r.userId, created_at: r.createdAt.toISOString().slice(0, 19) }))
          return new RestResponse(body, 200, pageHeaders(req, info))
        }
      }),
      endpoint({
        methods: ['POST'],
        args: { event_data: Type.Object({}, { description: 'The event to record.', additionalProperties: true }) },
        summary: 'Record an editor event (forwarded when tracking is allowed and an events service is set)',
        response: successObject({ data: Type.Object({ id: Type.Integer(), forwarded: Type.Boolean() }) }),
        permission: mayManageOptions.because('§2.11 events: manage_options (the real product refuses everyone)').probing({ body: { event_data: { name: 'probe' } } }),
        handler: async (req) => {
          const event = req.params.event_data as Record<string, unknown>
          if (Buffer.byteLength(JSON.stringify(event)) > EVENT_MAX_BYTES) throw invalidParam('event_data', `event_data must be at most ${EVENT_MAX_BYTES} bytes of JSON.`)
          const ts = event.ts
          const createdAt = typeof ts === 'number' && Number.isFinite(ts) && ts > 0 && ts < 1e13 ? new Date(ts > 1e11 ? ts : ts * 1000) : new Date()
          const forward = api.services.upstreams.configured(EVENTS_UPSTREAM) && await tracking.get()
          if (forward) await api.upstream(EVENTS_UPSTREAM).request('', { method: 'POST', json: event })
          const id = await store.transaction(async (tx) => {
            // Serialized so two inserts at once keep the cap.
            await tx.execute(sql`lock table builder_events in share row exclusive mode`)
            const [row] = await tx.insert(builderEvents).values({ eventData: event, userId: req.user.id, createdAt }).returning({ id: builderEvents.id })
            await tx.execute(sql`delete from builder_events where id not in (select id from builder_events order by id desc limit ${EVENTS_CAP})`)
            return row!.id
          })
          return { success: true, data: { id, forwarded: forward } }
        }
      })
    ]
  })]
}
