/**
 * Starts the gateway: `pnpm start` from the repository root.
 */
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { loadSettings } from './settings.js'

const settings = loadSettings()
const app = await buildApp(settings)

closeWithGrace({ delay: 10_000 }, async ({ err, signal }) => {
  if (err !== undefined) app.log.error({ err }, 'shutting down after an error')
  else app.log.info({ signal }, 'shutting down')
  await app.close()
})

await app.listen({ port: settings.port, host: settings.host })
app.log.info({ deployment: settings.deployment, database: settings.databaseUrl === undefined ? `embedded (${settings.dataDir})` : 'postgres' }, 'service ready')
