/** The failures the kernel's validator reports, as the core's WP_Error values. */
import { MAX_DEPTH, numberFormat, phpFloat } from './php.js'

/** One failed check, as the core's WP_Error: code, message, data (null when none). */
export interface ValidationIssue { code: string; message: string; data: unknown }

/** Largest list accepted anywhere in a value. */
export const MAX_ARRAY_ITEMS = 10_000

/**
 * The bound of a string that declares no `maxLength` (characters): no
 * argument reaches a pattern, a format or a handler unbounded. Arguments the
 * handler checks itself (`unvalidated`: post content) are bounded by the
 * body limit instead.
 */
export const DEFAULT_MAX_LENGTH = 1024 * 1024

export function issue (code: string, message: string, data: unknown = null): ValidationIssue {
  return { code, message, data }
}

export function typeIssue (param: string, type: string): ValidationIssue {
  return issue('rest_invalid_type', `${param} is not of type ${type}.`, { param })
}

export function tooManyItems (param: string, n: unknown): ValidationIssue {
  const f = phpFloat(n)
  return issue('rest_too_many_items', `${param} must contain at most ${numberFormat(f)} ${f === 1 ? 'item' : 'items'}.`)
}

export function overflowIssue (param: string): ValidationIssue {
  return issue('rest_too_deeply_nested', `${param} must not be nested more than ${MAX_DEPTH} levels deep.`)
}
