/**
 * anyOf / oneOf of the kernel's validator: which branch a value matches, and
 * the core's message when none (or, for oneOf, several) do. The validator of
 * one branch is passed in (`validate`), so this module needs neither the
 * validator nor the sanitizer that both use it.
 */
import type { JsonSchema } from './schema.js'
import { entriesOf, isPlainObject, isset, phpToString, wpSprintfList } from './php.js'
import { withInheritedType } from './schema-normalize.js'
import { issue, type ValidationIssue } from './validation-issues.js'

/** Validates a value against one branch: null when it matches. */
export type BranchValidator = (value: unknown, schema: unknown, param: string) => ValidationIssue | null

interface CombiningError { issue: ValidationIssue; schema: JsonSchema; index: number }

/** rest_format_combining_operation_error(). */
function formatCombiningError (param: string, e: CombiningError): ValidationIssue {
  const reason = e.issue.message
  if (isset(e.schema.title)) {
    return issue('rest_no_matching_schema', `${param} is not a valid ${phpToString(e.schema.title)}. Reason: ${reason}`, { position: e.index })
  }
  return issue('rest_no_matching_schema', `${param} does not match the expected format. Reason: ${reason}`, { position: e.index })
}

/** rest_get_combining_operation_error(). */
function combiningError (value: unknown, param: string, errors: CombiningError[]): ValidationIssue {
  if (errors.length === 1) return formatCombiningError(param, errors[0]!)

  const filtered = errors.filter((e) => {
    const data = e.issue.data as Record<string, unknown> | null
    return e.issue.code !== 'rest_invalid_type' || (isPlainObject(data) && isset(data.param) && data.param !== param)
  })
  if (filtered.length === 1) return formatCombiningError(param, filtered[0]!)

  if (filtered.length > 1 && filtered[0]!.schema.type === 'object') {
    let result: CombiningError | null = null
    let best = 0
    const keys = new Set(entriesOf(value).map(([k]) => k))
    for (const e of filtered) {
      if (isPlainObject(e.schema.properties)) {
        const n = Object.keys(e.schema.properties).filter((k) => keys.has(k)).length
        if (n > best) {
          result = e
          best = n
        }
      }
    }
    if (result !== null) return formatCombiningError(param, result)
  }

  const titles = errors.filter((e) => isset(e.schema.title)).map((e) => phpToString(e.schema.title))
  if (titles.length === errors.length) {
    return issue('rest_no_matching_schema', `${param} is not a valid ${wpSprintfList(titles)}.`)
  }
  return issue('rest_no_matching_schema', `${param} does not match any of the expected formats.`)
}

type Match = { schema: JsonSchema; issue?: undefined } | { schema?: undefined; issue: ValidationIssue }

/** rest_find_any_matching_schema(). */
function findAnyMatchingSchema (value: unknown, args: JsonSchema, param: string, validate: BranchValidator): Match {
  const errors: CombiningError[] = []
  const list = args.anyOf as unknown[]
  for (let index = 0; index < list.length; index++) {
    const schema = withInheritedType(list[index], args)
    const res = validate(value, schema, param)
    if (res === null) return { schema }
    errors.push({ issue: res, schema, index })
  }
  return { issue: combiningError(value, param, errors) }
}

/** rest_find_one_matching_schema(). */
function findOneMatchingSchema (value: unknown, args: JsonSchema, param: string, validate: BranchValidator): Match {
  const matching: Array<{ schema: JsonSchema; index: number }> = []
  const errors: CombiningError[] = []
  const list = args.oneOf as unknown[]
  for (let index = 0; index < list.length; index++) {
    const schema = withInheritedType(list[index], args)
    const res = validate(value, schema, param)
    if (res === null) matching.push({ schema, index })
    else errors.push({ issue: res, schema, index })
  }
  if (matching.length === 0) return { issue: combiningError(value, param, errors) }
  if (matching.length > 1) {
    const positions = matching.map((m) => m.index)
    const titles = matching.filter((m) => isset(m.schema.title)).map((m) => phpToString(m.schema.title))
    if (titles.length === matching.length) {
      return { issue: issue('rest_one_of_multiple_matches', `${param} matches ${wpSprintfList(titles)}, but should match only one.`, { positions }) }
    }
    return { issue: issue('rest_one_of_multiple_matches', `${param} matches more than one of the expected formats.`, { positions }) }
  }
  return { schema: matching[0]!.schema }
}

export function findMatching (key: 'anyOf' | 'oneOf', value: unknown, args: JsonSchema, param: string, validate: BranchValidator): Match {
  return key === 'anyOf' ? findAnyMatchingSchema(value, args, param, validate) : findOneMatchingSchema(value, args, param, validate)
}
