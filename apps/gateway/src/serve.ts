/**
 * Starts the gateway, once main.ts has set how V8 sizes the heap: reads the
 * settings, builds the app, listens.
 */
import { setFlagsFromString } from 'node:v8'
import closeWithGrace from 'close-with-grace'
import type { FastifyInstance } from 'fastify'
import type { Platform } from '@cms/core'
import { loadEnvFile, SettingError, shareStore, storeErrorLine, type SharedDatabase } from '@cms/store'
import { buildApp } from './app.js'
import { collectWhenIdle } from './idle-memory.js'
import { loadSettings, type Settings } from './settings.js'

/**
 * A failed start as one line a person can act on (a bad setting, an
 * unreachable database, a busy embedded database, a taken port); anything
 * else is a fault of the service and keeps its stack.
 */
function startFailure (err: unknown, settings: Settings | undefined): string {
  const known = storeErrorLine(err, settings?.databaseUrl)
  if (known !== undefined) return known
  const e = err as { code?: string, message?: string, stack?: string }
  if (e?.code === 'EADDRINUSE' && settings !== undefined) return `port ${settings.port} on ${settings.host} is in use (set PORT to another port)`
  if (e?.code === 'EADDRNOTAVAIL' && settings !== undefined) return `HOST ${settings.host} is not an address of this machine (set HOST, e.g. 127.0.0.1 or 0.0.0.0)`
  if (e?.code === 'EACCES' && settings !== undefined) return `port ${settings.port} needs privileges (set PORT to 1024 or above)`
  return e?.stack ?? String(err)
}

let settings: Settings | undefined
let app: FastifyInstance | undefined
let shared: SharedDatabase | undefined
try {
  loadEnvFile()
  settings = loadSettings()
  app = await buildApp(settings)
  const running = app
  closeWithGrace({ delay: 10_000 }, async ({ err, signal }) => {
    if (err !== undefined) running.log.error({ err }, 'shutting down after an error')
    else running.log.info(`${signal ?? 'signal'} received: shutting down`)
    await shared?.close()
    await running.close()
  })
  collectWhenIdle(app)
  await app.listen({ port: settings.port, host: settings.host })
  // Listening: the young generation may grow again as requests need (V8's default factor; main.ts).
  setFlagsFromString('--semi-space-growth-factor=2')
  // The embedded database is one process's: the CLI reaches it through this socket while the service runs.
  if (settings.databaseUrl === undefined) {
    const outcome = await shareStore((app as FastifyInstance & { platform: Platform }).platform.services.store, settings.dataDir)
    if (typeof outcome === 'string') app.log.warn(`the CLI cannot reach the embedded database while the service runs: ${outcome}`)
    else {
      shared = outcome
      app.log.info(`embedded database: shared with the CLI on ${outcome.path} (this user only)`)
    }
  }
  app.log.info({ deployment: settings.deployment, database: settings.databaseUrl === undefined ? `embedded (${settings.dataDir})` : 'postgres' }, 'service ready')
} catch (err) {
  // Whatever reading the settings throws is about a setting: its message alone.
  const line = err instanceof SettingError || settings === undefined ? (err as Error).message : startFailure(err, settings)
  process.stderr.write(`cms: ${line}\n`)
  await shared?.close().catch(() => {})
  await app?.close().catch(() => {})
  process.exit(1)
}
