/**
 * `cms status`: what runs and on what: the service (its /readyz), the
 * database (embedded or PostgreSQL, reached how), the profile and its
 * namespaces, the migrations applied, the packages the profile serves.
 */
import { parseArgs } from 'node:util'
import { redactUrl, sharedDatabaseAnswers, sharedSocketPath, storeSettingsFromEnv, type Store } from '@cms/store'
import { parseOrUsage, withStore, type CommandGroup } from '../command.js'

const usage = `Usage:
  cms status [--json]

Prints whether the service answers (GET /readyz on HOST:PORT, default
127.0.0.1:8080), the database and how the CLI reaches it, the deployment
profile (CMS_DEPLOYMENT) and its namespaces, the migrations applied per
package, the packages the profile serves and the number of users.

Flags:
  --json      print JSON instead of text
  -h, --help  show this help`

/**
 * GET /readyz with node:http rather than fetch: Node loads fetch's
 * implementation (undici) on first use, about a tenth of a second of CPU
 * that a call without the service spent for nothing.
 */
async function serviceOf (env: NodeJS.ProcessEnv): Promise<{ url: string, answers: boolean, ready?: unknown }> {
  const host = env.HOST === undefined || env.HOST === '' || env.HOST === '0.0.0.0' || env.HOST === '::' ? '127.0.0.1' : env.HOST
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${env.PORT || '8080'}`
  const { get } = await import('node:http')
  return await new Promise((resolve) => {
    const req = get(`${url}/readyz`, { timeout: 1500 }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { body += chunk })
      res.on('error', () => resolve({ url, answers: true }))
      res.on('end', () => {
        let ready: unknown
        try {
          ready = JSON.parse(body)
        } catch {}
        resolve({ url, answers: true, ready })
      })
    })
    req.on('timeout', () => req.destroy(new Error('no answer within 1.5 s')))
    req.on('error', () => resolve({ url, answers: false }))
  })
}

async function migrationsOf (store: Store): Promise<Record<string, number>> {
  const tables = await store.execute<{ name: string }>(
    "select table_name as name from information_schema.tables where table_schema = 'drizzle' and table_name like '\\_\\_migrations\\_%' order by 1"
  )
  const out: Record<string, number> = {}
  for (const { name } of tables) {
    const rows = await store.execute<{ n: number }>(`select count(*)::int as n from drizzle."${name.replace(/"/g, '')}"`)
    out[name.replace(/^__migrations_/, '')] = rows[0]?.n ?? 0
  }
  return out
}

export const statusCommand: CommandGroup = {
  name: 'status',
  summary: 'what runs: the service, the database, the profile, migrations, packages',
  usage,
  async run (args, ctx) {
    const { values } = parseOrUsage('status', () => parseArgs({ args, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }))
    if (values.help === true) {
      ctx.out(usage)
      return
    }
    const settings = storeSettingsFromEnv(ctx.env)
    const service = await serviceOf(ctx.env)
    const shared = settings.databaseUrl === undefined && await sharedDatabaseAnswers(settings.dataDir)
    const database = settings.databaseUrl !== undefined
      ? { kind: 'postgres', url: redactUrl(settings.databaseUrl) }
      : { kind: 'embedded', dataDir: settings.dataDir, reached: shared ? `through the running service (${sharedSocketPath(settings.dataDir)})` : 'directly (no service holds it)' }
    // Loaded here only: the profiles, and the packages' manifests (names and
    // namespaces; importing every package's code would triple the call's time).
    const [{ loadProfiles, namespacesOf }, { packageManifests, packagesPathOf }] = await Promise.all([import('@cms/gateway/profiles'), import('@cms/gateway/manifests')])
    const name = ctx.env.CMS_DEPLOYMENT || 'A'
    const profile = loadProfiles(ctx.env.CMS_PROFILES || undefined)[name]
    const namespaces = profile === undefined ? [] : namespacesOf(profile)
    const packages = packageManifests(packagesPathOf(ctx.env))
      .map((p) => ({ name: p.name, namespaces: p.cms.namespaces.filter((ns) => namespaces.includes(ns)) }))
      .filter((p) => p.namespaces.length > 0)
    const { migrations, users } = await withStore(ctx, async (store) => ({
      migrations: await migrationsOf(store),
      users: (await store.execute<{ n: number }>('select count(*)::int as n from users'))[0]?.n ?? 0
    }))
    const report = { service: { url: service.url, running: service.answers, ready: service.ready }, database, profile: { name, known: profile !== undefined, namespaces }, migrations, packages, users }
    if (values.json === true) {
      ctx.out(JSON.stringify(report))
      return
    }
    const lines = [
      `service     ${service.answers ? `running at ${service.url} (${JSON.stringify(service.ready)})` : `not answering at ${service.url}`}`,
      `database    ${database.kind === 'postgres' ? `PostgreSQL ${database.url}` : `embedded PGlite in ${database.dataDir}, reached ${database.reached}`}`,
      `profile     ${name}${profile === undefined ? ' (unknown profile)' : ''}: ${namespaces.length} namespaces (${namespaces.join(', ')})`,
      `migrations  ${Object.entries(migrations).map(([set, n]) => `${set} ${n}`).join(', ') || 'none (run: cms migrate)'}`,
      `packages    ${packages.map((p) => p.name).join(', ') || 'none'}`,
      `users       ${users}`
    ]
    ctx.out(lines.join('\n'))
  }
}
