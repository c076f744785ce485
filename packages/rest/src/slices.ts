/**
 * The slicer of the sliced walks (issue 27): a large argument's validation (validation.ts `validateSteps`) and
 * sanitizing (sanitize.ts `sanitizeSteps`) do a bounded share of their work a turn, with a `yield` between (a point
 * where the caller may wait for the next turn of the event loop). A module of its own: sanitize.ts cannot import
 * validation.ts, which imports it.
 */
import { keysOf } from './php.js'

/**
 * Members of a list or an object validated (or sanitized, or checked for duplicates) in one turn by the sliced walks
 * (a 22,500-member argument was one task). Each member's own walk is whole: a member holding most of the value is
 * not sliced.
 */
export const MEMBER_SLICE = 2_048

/**
 * UTF-16 units of a long string whose characters are counted in one turn (a 1.9 MB string's count was one task of
 * about 25 ms under load, `codePointLength`): about half a millisecond of a two-byte string's count.
 */
export const UNIT_SLICE = 128 * 1024

/**
 * The work of the sliced walks, for tests that count it (never for timing): the slices taken and the most members
 * in one; the most members listed at once (`Object.keys` of an object whose keys the JSON thread's pieces did not
 * bring); the string slices counted and the most units in one.
 */
export const memberSliceCounts = { slices: 0, most: 0, listedAtOnce: 0, unitSlices: 0, mostUnits: 0 }

/** A slice of `from`..`to` members counted. */
export function countSlice (from: number, to: number): void {
  memberSliceCounts.slices++
  if (to - from > memberSliceCounts.most) memberSliceCounts.most = to - from
}

/**
 * `check` of `n` members (or units), `slice` at a time (MEMBER_SLICE by default) with a `yield` between, each slice
 * counted (`counted`): its first outcome other than null, or null.
 */
export function * inSlices<R> (n: number, check: (from: number, to: number) => R | null, slice = MEMBER_SLICE,
  counted: (from: number, to: number) => void = countSlice): Generator<void, R | null> {
  for (let from = 0; from < n; from += slice) {
    if (from > 0) yield
    const to = Math.min(n, from + slice)
    counted(from, to)
    const r = check(from, to)
    if (r !== null) return r
  }
  return null
}

/**
 * The member names of a list or an object for a sliced walk: `listed`, the keys the JSON thread's pieces brought
 * (listed-keys.ts), else listed at once (counted).
 */
export function memberKeys (value: unknown, listed: string[] | undefined): string[] {
  if (listed !== undefined) return listed
  const keys = keysOf(value)
  if (!Array.isArray(value) && keys.length > memberSliceCounts.listedAtOnce) memberSliceCounts.listedAtOnce = keys.length
  return keys
}

/** A slice of `from`..`to` UTF-16 units counted. */
export function countUnits (from: number, to: number): void {
  memberSliceCounts.unitSlices++
  if (to - from > memberSliceCounts.mostUnits) memberSliceCounts.mostUnits = to - from
}
