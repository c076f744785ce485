/**
 * Small helpers the users routes share: dates as the core prints them, the
 * `rest_invalid_param` shape for a failed argument check, and a per-request
 * memo so a permission check and its handler read a user once.
 */
import { invalidParam, RestError, type Principal, type RestRequest } from '@cms/rest'
import type { Store } from '@cms/store'
import { Caller } from './capabilities.js'
import { textPool } from '../text/text-pool.js'
import { findUserById, type UserRecord } from './store.js'

/** `2026-01-31T09:30:00` (UTC, no offset). */
export function utcDate (date: Date): string {
  return date.toISOString().slice(0, 19)
}

/** A check of one argument failed with `inner`: reported like the kernel's validation errors. */
export function invalidParamOf (name: string, inner: unknown): RestError {
  if (!(inner instanceof RestError)) throw inner
  return invalidParam(name, inner.message, { code: inner.code, message: inner.message, data: { status: 400 } })
}

/**
 * How text a user stores about an account (display name, description,
 * first and last name, nickname, application password names) is kept: as
 * written for writers with `unfiltered_html`, else through the core's kses
 * rules for such fields (the small inline set), in the text pool: a
 * description may be a megabyte (the default string bound), seconds of
 * filtering that must not hold the request thread.
 */
export function userTextFilter (writer: Principal): (text: string) => Promise<string> {
  return writer.can('unfiltered_html') ? async (text) => text : async (text) => await textPool.filter(text, 'title')
}

/** The caller's application-password uuid when it signed in with one. */
export function appPasswordOf (req: RestRequest): string | undefined {
  return req.user instanceof Caller ? req.user.appPasswordUuid : undefined
}

/** A user, loaded once per request (the permission check, the handler and the Allow header's checks share it). */
export async function userOnce (store: Store, req: RestRequest, id: number): Promise<UserRecord | undefined> {
  return await req.memo(`user:${id}`, async () => await findUserById(store, id))
}

/** After a write, later checks of this request (the Allow header) read the user again. */
export function forgetUser (req: RestRequest, id: number): void {
  req.memo.forget(`user:${id}`)
}
