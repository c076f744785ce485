/**
 * The performance targets (issue 6), checked against one run's rows. A
 * target whose scenario did not run (a smoke run has one small size) reads
 * "n/a".
 */
import type { Measurement } from './load.js'

export interface Row {
  scenario: string
  /** Who asks: `anonymous (cached)` answers come from the response cache; `signed in` ones run the query. */
  caller?: string
  /** The database's durability settings during the row (writes depend on them). */
  database?: string
  size: number
  service: Measurement
  bare?: Measurement
  ratio?: number
}

export interface Target {
  target: string
  wanted: string
  measured: string
  met?: boolean
}

// autocannon's latencies are whole milliseconds: 0 ms reads as 1 ms in ratios.
const ms = (n: number): number => Math.max(n, 1)

export function targetsOf (rows: Row[], peakRssMb: number): Target[] {
  const sizes = [...new Set(rows.map((r) => r.size))].sort((a, b) => a - b)
  const smallest = sizes[0]
  const largest = sizes[sizes.length - 1]
  const find = (scenario: string, size: number | undefined): Row | undefined => rows.find((r) => r.scenario === scenario && r.size === size)
  const out: Target[] = []

  const ratio = (scenario: string, wanted: number, label: string): void => {
    for (const size of sizes) {
      const row = find(scenario, size)
      if (row?.ratio === undefined) continue
      out.push({ target: `${label} (${size} posts), service/bare req/s`, wanted: `>= ${wanted}`, measured: row.ratio.toFixed(2), met: row.ratio >= wanted })
    }
  }
  ratio('posts list (per_page=10)', 0.5, 'posts list')
  ratio('single post', 0.6, 'single post')
  ratio('index GET /', 0.9, 'index GET /')

  const create = find('authenticated create', smallest)
  if (create !== undefined) {
    out.push({ target: 'authenticated create, req/s', wanted: '>= 2000', measured: create.service.requestsPerSec.toFixed(0), met: create.service.requestsPerSec >= 2000 })
  }
  const batch = find('batch of 25 creates', smallest)
  if (batch?.ratio !== undefined) {
    out.push({ target: 'batch of 25 creates, p50 / one create p50', wanted: '<= 5', measured: batch.ratio.toFixed(2), met: batch.ratio <= 5 })
  }

  for (const scenario of ['posts list (per_page=10)', 'posts list, signed in', 'posts list, signed in, 1 connection']) {
    const small = find(scenario, smallest)
    const large = find(scenario, largest)
    const label = `${scenario}: p50 at ${largest} / p50 at ${smallest} posts`
    if (small === undefined || large === undefined || largest === smallest) {
      out.push({ target: label, wanted: '<= 2', measured: 'n/a' })
      continue
    }
    const r = ms(large.service.p50) / ms(small.service.p50)
    out.push({ target: label, wanted: '<= 2', measured: `${r.toFixed(2)} (${large.service.p50} / ${small.service.p50} ms)`, met: r <= 2 })
  }
  for (const scenario of ['search', 'search, signed in', 'search, signed in, 1 connection']) {
    const row = find(scenario, largest)
    const label = `${scenario}: p50 at ${largest} posts`
    if (row === undefined || (largest ?? 0) < 1_000_000) {
      out.push({ target: label, wanted: '<= 50 ms at 1000000 posts', measured: row === undefined ? 'n/a' : `${row.service.p50} ms (not 1000000 posts)` })
      continue
    }
    out.push({ target: label, wanted: '<= 50 ms', measured: `${row.service.p50} ms`, met: row.service.p50 <= 50 })
  }
  out.push({ target: 'gateway peak resident memory', wanted: '<= 200 MB', measured: `${peakRssMb.toFixed(0)} MB`, met: peakRssMb <= 200 })
  return out
}
