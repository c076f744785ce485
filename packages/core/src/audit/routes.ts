/**
 * `GET /cms/v2/audit-log`: the audit log, newest first, a page at a time
 * with the totals headers of every cms/v2 list; filtered by actor, object,
 * route, method and time. Administrators only (`manage_options`). There is
 * no route that changes or deletes an entry: the log is append-only
 * (store.ts), and entries leave only by the retention prune.
 */
import { Type } from '@sinclair/typebox'
import { can, checkPage, contextParam, declareErrors, endpoint, Enum, field, invalidParam, itemSchema, pageHeaders, pagingParams, RestResponse, route, type Params, type RelativeRouteDecl, type RestRequest } from '@cms/rest'
import type { AuditServices as Services } from './services.js'
import { parseRequestDate } from '../base/dates.js'
import type { AuditRow } from './entry.js'

const VE = ['view', 'edit']

const auditErrors = declareErrors({
  rest_audit_log_invalid_page_number: { status: 400, message: 'The page number requested is larger than the number of pages available.' }
})

const AUDIT_CREDENTIALS = ['app-password', 'cookie', 'cli', 'anonymous'] as const

const auditEntrySchema = itemSchema('audit-entry', {
  id: field({ description: 'Unique identifier for the entry.', type: 'integer', context: VE, readonly: true }),
  date_gmt: field({ description: 'When the write was answered, in UTC (ISO 8601, milliseconds).', type: 'string', format: 'date-time', context: VE, readonly: true }),
  user: field({ description: 'The ID of the user who wrote (0: an anonymous caller).', type: 'integer', context: VE, readonly: true }),
  credential: field({ description: 'How the user signed in.', type: 'string', enum: AUDIT_CREDENTIALS, context: VE, readonly: true }),
  credential_id: field({ description: 'Which credential: the application password\'s uuid, the OS user of a command line; null when none.', type: ['string', 'null'], context: VE, readonly: true }),
  ip: field({ description: 'The client\'s address.', type: 'string', context: VE, readonly: true }),
  method: field({ description: 'The method as run (after any override); CLI for a command line.', type: 'string', context: VE, readonly: true }),
  route: field({ description: 'The route\'s pattern as the index shows it, or the command.', type: 'string', context: VE, readonly: true }),
  path: field({ description: 'The path as requested, or the command line without option values.', type: 'string', context: VE, readonly: true }),
  object_type: field({ description: 'What was written: the route\'s item schema title, else its namespace and resource.', type: 'string', context: VE, readonly: true }),
  object_id: field({ description: 'Which object: the answer\'s id, else the path\'s.', type: ['string', 'null'], context: VE, readonly: true }),
  status: field({ description: 'The answer\'s HTTP status (a command line\'s exit code).', type: 'integer', context: VE, readonly: true }),
  error_code: field({ description: 'The error\'s code when the write was refused or failed.', type: ['string', 'null'], context: VE, readonly: true }),
  fields: field({ description: 'The names of the arguments sent.', type: 'array', items: { type: 'string' }, context: VE, readonly: true }),
  values: field({ description: 'The values of the harmless arguments among them (numbers, flags, choices, dates, short id lists); never a secret\'s.', type: 'object', context: VE, readonly: true })
})

const when = (what: string): ReturnType<typeof Type.String> =>
  Type.String({ description: `Limit response to entries written ${what} a given ISO8601 compliant date (UTC unless it has an offset).`, format: 'date-time' })

const listArgs = {
  context: contextParam(auditEntrySchema),
  ...pagingParams(),
  user: Type.Optional(Type.Integer({ description: 'Limit response to entries of one user (0: anonymous callers).', minimum: 0, maximum: 2_147_483_647 })),
  credential: Type.Optional(Enum(AUDIT_CREDENTIALS, { description: 'Limit response to entries of one kind of credential.' })),
  object_type: Type.Optional(Type.String({ description: 'Limit response to entries about one type of object.', maxLength: 200 })),
  object_id: Type.Optional(Type.String({ description: 'Limit response to entries about one object (with object_type, or alone).', maxLength: 200 })),
  route: Type.Optional(Type.String({ description: 'Limit response to entries of one route pattern (`/cms/v2/posts/(?P<id>[\\d]+)`) or command.', maxLength: 500 })),
  method: Type.Optional(Enum(['POST', 'PUT', 'PATCH', 'DELETE', 'CLI'] as const, { description: 'Limit response to entries of one method.' })),
  after: Type.Optional(when('after')),
  before: Type.Optional(when('before'))
}

type ListParams = Params<typeof listArgs>

function dateOf (value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined
  const date = parseRequestDate(value, 'UTC')
  if (date === null) throw invalidParam(name, `Invalid date for ${name}.`)
  return date
}

function formatEntry (row: AuditRow): Record<string, unknown> {
  return {
    id: row.id,
    date_gmt: row.at.toISOString(),
    user: row.userId,
    credential: row.credential,
    credential_id: row.credentialId,
    ip: row.ip,
    method: row.method,
    route: row.route,
    path: row.path,
    object_type: row.objectType,
    object_id: row.objectId,
    status: row.status,
    error_code: row.errorCode,
    fields: row.fields,
    values: row.values
  }
}

export function auditRoutes (services: Services): RelativeRouteDecl[] {
  const list = async (req: RestRequest<ListParams>): Promise<RestResponse> => {
    const p = req.params
    // A page no log can reach is answered before anything is read (and before its offset overflows).
    if ((p.page - 1) * p.per_page > 1e12) throw auditErrors.rest_audit_log_invalid_page_number()
    const after = dateOf(p.after, 'after')
    const before = dateOf(p.before, 'before')
    // This process's own queue first: a reader sees the writes it was answered before asking.
    await services.audit.flush()
    const { rows, total } = await services.audit.list({
      page: p.page,
      perPage: p.per_page,
      userId: p.user,
      credential: p.credential,
      objectType: p.object_type,
      objectId: p.object_id,
      route: p.route,
      method: p.method,
      after,
      before
    })
    const info = { total, perPage: p.per_page, page: p.page }
    checkPage(info, auditErrors.rest_audit_log_invalid_page_number)
    return new RestResponse(rows.map(formatEntry), 200, pageHeaders(req, info))
  }

  return [route({
    path: '/audit-log',
    schema: auditEntrySchema,
    endpoints: [endpoint({
      methods: ['GET'],
      summary: 'List audit log entries (every write, newest first)',
      args: listArgs,
      permission: can('manage_options', { why: 'CONVENTIONS §4: the audit log is the site\'s administrators\' (manage_options)' }),
      handler: list
    })]
  })]
}
