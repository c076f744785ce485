/**
 * Maintenance mode across replicas: two instances over one content directory
 * stand for two processes. The holder's own instance answers at once; the
 * other sees the window (and its end) within about a second (its re-read).
 * The HTTP side (anonymous reads
 * answer 503, signed-in ones do not) is tested by the rollback package.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { maintenanceMode } from '../src/platform/maintenance.js'

const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

/** Polls `check` until it holds or `ms` pass; answers how long it took. */
async function until (check: () => Promise<boolean>, ms: number): Promise<number> {
  const start = Date.now()
  while (!(await check())) {
    if (Date.now() - start > ms) return Infinity
    await sleep(20)
  }
  return Date.now() - start
}

/**
 * Whether `remaining` (whole seconds, rounded up) fits a window of `seconds`
 * enabled after `from`: all of it while under a second has passed, and no
 * more than the seconds passed since `from` less. A loaded machine can take
 * seconds between the enable and the read: the bound follows the clock.
 */
const fits = (remaining: number, seconds: number, from: number): boolean =>
  remaining <= seconds && remaining >= seconds - Math.floor((Date.now() - from) / 1000)

t.test('a window is seen at once by its holder and within a re-read by another replica', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cms-maintenance-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const a = maintenanceMode(dir)
  const b = maintenanceMode(dir)
  t.equal(await a.remaining(), 0, 'off when no holder exists (no directory)')
  t.equal(await b.remaining(), 0)

  const enabledFrom = Date.now()
  await a.enable('rollback:plugin:x', { seconds: 120 })
  const own = await a.remaining()
  t.ok(fits(own, 120, enabledFrom), `the holder's own process sees it at once (${own} s, ${Date.now() - enabledFrom} ms after the enable began)`)
  // Waits that only end a true hang: a loaded machine is slow, and the outcome, not its time, is the behaviour.
  const seen = await until(async () => await b.remaining() > 0, 60_000)
  t.ok(Number.isFinite(seen), `another replica sees it after ${seen} ms`)
  const other = await b.remaining()
  t.ok(fits(other, 120, enabledFrom), `the same window (${other} s, ${Date.now() - enabledFrom} ms after the enable began)`)

  // A second holder outlives the first: ending one keeps the other's window.
  await b.enable('rollback:theme:y', { seconds: 30 })
  t.ok(await a.disable('rollback:plugin:x'), 'disable answers that it held one')
  t.ok(await a.remaining() > 0 && await a.remaining() <= 30, `the remaining holder still holds it (${await a.remaining()} s)`)
  t.notOk(await a.disable('rollback:plugin:x'), 'a second disable held nothing')
  t.ok(await b.disable('rollback:theme:y'))
  t.equal(await b.remaining(), 0, 'off at once for the process that ended it')
  const lifted = await until(async () => await a.remaining() === 0, 60_000)
  t.ok(Number.isFinite(lifted), `and for the other after ${lifted} ms`)
})

t.test('a window that ends by itself lifts without a disable', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cms-maintenance-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const m = maintenanceMode(dir)
  const from = Date.now()
  await m.enable('short', { seconds: 1 })
  const left = await m.remaining()
  t.ok(fits(left, 1, from), `one second at most (${left} s, ${Date.now() - from} ms after the enable began)`)
  const lifted = await until(async () => await m.remaining() === 0, 60_000)
  t.ok(Number.isFinite(lifted), `lifted after ${lifted} ms`)
})
