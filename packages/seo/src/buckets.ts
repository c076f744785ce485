/**
 * The score buckets of seo-rollback-assistant-addons.md §1.2, in one place
 * so the statistics, the dashboard scores and the tests agree on their
 * exact boundaries.
 */

/** Classic ranks (statistics): no focus keyphrase `na`; 1-40 bad, 41-70 ok, 71-100 good; `noindex` first. */
export type ClassicRank = 'na' | 'bad' | 'ok' | 'good' | 'noindex'

export function classicRank (hasKeyphrase: boolean, score: number | null, noindex: boolean): ClassicRank {
  if (noindex) return 'noindex'
  if (!hasKeyphrase || score === null || score <= 0) return 'na'
  return score <= 40 ? 'bad' : score <= 70 ? 'ok' : 'good'
}

/** Dashboard score groups, in the order they are reported. */
export const SCORE_GROUPS = ['good', 'ok', 'bad', 'notAnalyzed'] as const
export type ScoreGroup = typeof SCORE_GROUPS[number]

/** SEO group of an indexable: its keyphrase score (NULL without a keyphrase). */
export function seoGroup (score: number | null): ScoreGroup {
  if (score === null || score <= 0) return 'notAnalyzed'
  return score <= 40 ? 'bad' : score <= 70 ? 'ok' : 'good'
}

/** Readability group: score 0 is `bad` when the post was analysed (a reading time is present), else `notAnalyzed`. */
export function readabilityGroup (score: number | null, readingTime: number | null): ScoreGroup {
  const s = score ?? 0
  if (s <= 0) return readingTime !== null ? 'bad' : 'notAnalyzed'
  return s <= 40 ? 'bad' : s <= 70 ? 'ok' : 'good'
}
