/**
 * What a load run cost, read from /proc while it runs.
 */
import type { Database } from './database.js'
import type { Measurement } from './load.js'
import { machineTicks } from './proc.js'
import type { Service } from './services.js'

/**
 * A load run with what it cost: the server's CPU time per answered request
 * and its peak resident memory; with the database given, PostgreSQL's CPU
 * time per request; and the share of the machine left idle.
 */
export async function observe (server: Service, db: Database | undefined, run: () => Promise<Measurement>): Promise<Measurement> {
  let peak = server.rss()
  const timer = setInterval(() => { peak = Math.max(peak, server.rss()) }, 250)
  const cpu = server.cpu()
  const dbCpu = db?.cpu()
  const ticks = machineTicks()
  try {
    const m = await run()
    const perRequest = (seconds: number): number | undefined => m.requests > 0 ? seconds * 1e6 / m.requests : undefined
    const dbNow = db?.cpu()
    const after = machineTicks()
    peak = Math.max(peak, server.rss())
    return {
      ...m,
      cpuUsPerRequest: perRequest(server.cpu() - cpu),
      dbCpuUsPerRequest: dbCpu === undefined || dbNow === undefined ? undefined : perRequest(dbNow - dbCpu),
      idlePercent: after.total > ticks.total ? 100 * (after.idle - ticks.idle) / (after.total - ticks.total) : undefined,
      peakRssMb: peak / 1048576
    }
  } finally {
    clearInterval(timer)
  }
}
