/**
 * An audit entry from what the kernel reports of a write (`onWrite`,
 * @cms/rest writes.ts): who (user and credential), from where, which route
 * and object, the outcome, and the arguments sent.
 *
 * Values: only an argument's name is kept, unless its value is harmless
 * and short, as its declared schema tells: a number, a flag, one of the
 * choices of an `enum`, a date, or a short list of those (ids). Free text
 * (a title, a content, an e-mail address) is kept by name only. Never a
 * value of an argument declared `secret` (a password, a token, a key: the
 * kernel's mark on its schema), nor, as a second guard for a package that
 * forgot the mark, of one whose name says it is one.
 */
import { argsOf, type JsonSchema, type Principal, type WriteRecord } from '@cms/rest'
import type { AuditEntry } from './entry.js'

/** Names that say a secret, whatever the schema says (the guard behind the `secret` mark). */
const SECRET_NAME = /pass(word|phrase|wd)|secret|token|api[-_]?key|private[-_]?key|credential|^auth$|authoriz|salt|nonce|signature|cookie|session/i
/** A string kept as a value is at most this long; a list at most this many items. */
const SHORT_TEXT = 64
const SHORT_LIST = 20
/** Arguments that shape the answer rather than change anything. */
const NOT_CHANGES = new Set(['context', '_fields', '_embed', '_envelope', '_method', '_jsonp', '_pretty'])

/** The entry for one answered write. */
export function entryOf (record: WriteRecord, at = new Date()): AuditEntry {
  const { fields, values } = changesOf(record)
  const failed = record.status >= 400
  return {
    at,
    ...credentialOf(record.caller),
    ip: record.ip,
    method: record.method,
    route: record.pattern,
    path: record.path,
    objectType: objectTypeOf(record),
    objectId: objectIdOf(record, failed),
    status: record.status,
    errorCode: failed ? codeOf(record.body) : null,
    fields,
    values
  }
}

/** Who: the user, and the credential they signed in with. */
export function credentialOf (caller: Principal): Pick<AuditEntry, 'userId' | 'credential' | 'credentialId'> {
  if (caller.id === 0) return { userId: 0, credential: 'anonymous', credentialId: null }
  const uuid = (caller as { appPasswordUuid?: unknown }).appPasswordUuid
  // The core's callers sign in with an application password, or with the admin pages' session cookie.
  return typeof uuid === 'string' && uuid !== ''
    ? { userId: caller.id, credential: 'app-password', credentialId: uuid }
    : { userId: caller.id, credential: 'cookie', credentialId: null }
}

interface Recorded { name: string, schema: JsonSchema, secret: boolean }

/** The arguments an endpoint's entries may name, worked out once per endpoint (not per write). */
const recordedArgs = new WeakMap<object, Recorded[]>()

function recordedOf (endpoint: WriteRecord['endpoint']): Recorded[] {
  let args = recordedArgs.get(endpoint)
  if (args === undefined) {
    args = argsOf(endpoint).filter((a) => !NOT_CHANGES.has(a.name)).map((a) => ({ name: a.name, schema: a.schema, secret: a.secret || SECRET_NAME.test(a.name) }))
    recordedArgs.set(endpoint, args)
  }
  return args
}

/** The declared arguments sent (path variables aside), and the values of the harmless ones. */
function changesOf (record: WriteRecord): { fields: string[], values: Record<string, unknown> } {
  const fields: string[] = []
  const values: Record<string, unknown> = {}
  for (const arg of recordedOf(record.endpoint)) {
    if (!(arg.name in record.sent) || arg.name in record.vars) continue
    fields.push(arg.name)
    if (arg.secret) continue
    const value = record.sent[arg.name]
    if (harmless(arg.schema, value)) values[arg.name] = value
  }
  return { fields, values }
}

function typesOf (schema: JsonSchema): string[] {
  const type = schema.type
  return Array.isArray(type) ? type.map(String) : typeof type === 'string' ? [type] : []
}

/** Whether a value may be kept, by what its schema declares it to be. */
function harmless (schema: JsonSchema, value: unknown, depth = 0): boolean {
  if (value === null || typeof value === 'boolean') return true
  if (typeof value === 'number') return Number.isFinite(value)
  const types = typesOf(schema)
  if (typeof value === 'string') {
    if (value.length > SHORT_TEXT) return false
    // Sent as text (a query string, a form): a number or a flag by its declaration.
    if (types.some((t) => t === 'integer' || t === 'number' || t === 'boolean')) return true
    if (Array.isArray(schema.enum)) return true
    return schema.format === 'date-time' || schema.format === 'date'
  }
  if (Array.isArray(value) && depth === 0) {
    const items = (schema.items ?? {}) as JsonSchema
    return value.length <= SHORT_LIST && value.every((v) => harmless(items, v, 1))
  }
  return false
}

/** The route's item schema's title (`post`), else its namespace and first segment (`builder/v1:documents`). */
function objectTypeOf (record: WriteRecord): string {
  const title = record.route.schema?.title
  if (typeof title === 'string' && title !== '') return title
  const { namespace, path } = record.route
  const rest = path.slice(namespace.length + 1).split('/').filter((s) => s !== '')
  const resource = rest[0] !== undefined && !rest[0].startsWith('{') ? rest[0] : ''
  if (namespace === '') return resource
  return resource === '' ? namespace : `${namespace}:${resource}`
}

/** The answer's `id` (a deletion's `previous.id`), else the path's `id`, else its only variable. */
function objectIdOf (record: WriteRecord, failed: boolean): string | null {
  if (!failed) {
    const body = record.body as { id?: unknown, previous?: { id?: unknown } } | null
    const id = body?.id ?? body?.previous?.id
    if (typeof id === 'number' || (typeof id === 'string' && id !== '')) return String(id).slice(0, 200)
  }
  const vars = Object.keys(record.vars)
  const name = vars.includes('id') ? 'id' : vars.length === 1 ? vars[0]! : undefined
  return name === undefined ? null : String(record.vars[name]).slice(0, 200)
}

function codeOf (body: unknown): string | null {
  const code = (body as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code.slice(0, 200) : null
}
