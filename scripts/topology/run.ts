/**
 * scripts/topology.sh: a Compose profile of docker-compose.yml as local
 * processes (these machines have no container engine). Run from the
 * repository root by topology.sh:
 *
 *   up <profile>             start every service of the profile (plan.ts reads the Compose file),
 *                            each after what it depends on, wait until all are healthy, print the
 *                            entry point's URL as the last line
 *   down <profile>           stop them by their process ids, remove their files
 *   env <profile>            the CMS_TEST_TARGET* variables that point the HTTP suites at it
 *   state <profile>          the state file (JSON: every process, its port and log)
 *   kill <profile> <service> <replica>    SIGKILL one replica (benches: failover)
 *   start <profile> <service> <replica>   start it again, same port and settings; waits until healthy
 *
 * PostgreSQL runs from its binaries (initdb, pg_ctl; as root, as the unprivileged
 * user postgres or nobody), HAProxy from Debian's package with its Compose
 * configuration rewritten for local addresses (plan.ts localHaproxyConfig),
 * and this repository's services compiled (scripts/start.mjs, scripts/cms.mjs) with the Compose
 * environment, in which service names become 127.0.0.1 and its ports, and
 * volume paths local directories. Ports are free ones, except the entry
 * point's: CMS_PORT when set, as in Compose. Secrets come from the same env
 * file Compose reads (CMS_SECRETS_FILE, default deploy/secrets.example.env).
 */
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync, chownSync, statSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { localHaproxyConfig, planOf, type Plan, type PlannedService } from './plan.js'

const root = resolve(import.meta.dirname, '../..')
const composeFile = join(root, 'docker-compose.yml')

interface Replica {
  pid: number
  /** Container port -> local port. */
  ports: Record<number, number>
  argv: string[]
  env: Record<string, string>
  log: string
}

interface State {
  profile: string
  dir: string
  entry: string
  databaseUrl?: string
  deployment?: string
  /** PostgreSQL: its data directory and the user it runs as. */
  postgres?: { data: string, user?: string }
  services: Record<string, Replica[]>
}

const stateFile = (profile: string): string => join(root, '.topology', `${profile}.json`)
const say = (line: string): void => { process.stderr.write(`topology: ${line}\n`) }
const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

function readState (profile: string): State | undefined {
  try { return JSON.parse(readFileSync(stateFile(profile), 'utf8')) as State } catch { return undefined }
}
function writeState (state: State): void {
  mkdirSync(join(root, '.topology'), { recursive: true })
  writeFileSync(stateFile(state.profile), `${JSON.stringify(state, null, 2)}\n`)
}

async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => { resolve(port) })
    }).on('error', reject)
  })
}

async function accepts (port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' })
    socket.setTimeout(1000)
    socket.on('connect', () => { socket.destroy(); resolve(true) })
    socket.on('error', () => { resolve(false) })
    socket.on('timeout', () => { socket.destroy(); resolve(false) })
  })
}

async function answers (url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3000) })
    await res.arrayBuffer()
    return res.ok
  } catch {
    return false
  }
}

function alive (pid: number): boolean {
  try { process.kill(pid, 0); return true } catch { return false }
}

function tail (file: string, lines = 15): string {
  try { return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') } catch { return '(no log)' }
}

function findBin (name: string): string {
  const which = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' })
  if (which.status === 0 && which.stdout.trim() !== '') return which.stdout.trim()
  const base = '/usr/lib/postgresql'
  if (existsSync(base)) {
    for (const v of readdirSync(base).sort().reverse()) if (existsSync(join(base, v, 'bin', name))) return join(base, v, 'bin', name)
  }
  for (const dir of ['/usr/sbin', '/usr/local/sbin']) if (existsSync(join(dir, name))) return join(dir, name)
  throw new Error(`${name} not found${name === 'haproxy' ? ' (apt-get install -y haproxy)' : ' (install the PostgreSQL server binaries)'}`)
}

/** PostgreSQL refuses root: as root it runs as an existing unprivileged user (as scripts/pg-test-server.sh does). */
function pgUser (): string | undefined {
  if (process.getuid?.() !== 0) return undefined
  for (const u of [process.env.PG_TEST_USER, 'postgres', 'nobody']) {
    if (u !== undefined && u !== '' && spawnSync('id', [u]).status === 0) return u
  }
  throw new Error('running as root and neither postgres nor nobody exists: set PG_TEST_USER')
}
function asPg (user: string | undefined, argv: string[], input?: string): { status: number | null, out: string } {
  const full = user === undefined ? argv : ['runuser', '-u', user, '--', ...argv]
  const r = spawnSync(full[0]!, full.slice(1), { input, encoding: 'utf8' })
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` }
}

/** Exit codes of the processes this run started, by pid (a one-shot job's is waited for). */
const exits = new Map<number, number | null>()

function spawnLogged (argv: string[], env: Record<string, string>, log: string): number {
  const fd = openSync(log, 'a')
  const child = spawn(argv[0]!, argv.slice(1), { cwd: root, env, detached: true, stdio: ['ignore', fd, fd] })
  closeSync(fd)
  const pid = child.pid!
  child.on('exit', (code) => { exits.set(pid, code) })
  child.unref()
  return pid
}

/** A setting of the Compose file with service names and volume paths made local. */
function localValue (value: string, plan: Plan, ports: Map<string, Record<number, number>>, volumes: Record<string, string>, service: PlannedService): string {
  let out = value.replace(/(\/\/|@)([a-z][\w-]*):(\d+)/g, (all, lead: string, host: string, port: string) => {
    const local = ports.get(host)?.[Number(port)]
    return local === undefined ? all : `${lead}127.0.0.1:${local}`
  })
  for (const v of service.volumes) {
    if (v.named && (out === v.target || out.startsWith(`${v.target}/`))) out = volumes[v.source]! + out.slice(v.target.length)
  }
  return out
}

async function up (profile: string): Promise<void> {
  const existing = readState(profile)
  if (existing !== undefined && Object.values(existing.services).flat().some((r) => alive(r.pid))) {
    throw new Error(`${profile} is already up (scripts/topology.sh down ${profile} first)`)
  }
  const entryPort = process.env.CMS_PORT !== undefined && process.env.CMS_PORT !== '' ? Number(process.env.CMS_PORT) : await freePort()
  const plan = planOf(readFileSync(composeFile, 'utf8'), profile, { ...process.env, CMS_PORT: String(entryPort) }, root)
  // The services run from dist/ (scripts/start.mjs, scripts/cms.mjs): compiled here once, not by each replica at once.
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'build-dist.mjs')], { cwd: root, stdio: ['ignore', 2, 2] })
  if (built.status !== 0) throw new Error('scripts/build-dist.mjs failed')
  const dir = mkdtempSync(join(tmpdir(), `cms-topology-${profile}-`))
  mkdirSync(join(dir, 'logs'))
  const state: State = { profile, dir, entry: `http://127.0.0.1:${entryPort}`, services: {} }
  writeState(state)

  // Local ports: the entry point's is CMS_PORT; every other listener gets a free one. Replica 1's
  // ports are what other services' settings name (only load balancers and single services are named).
  const portsOf = new Map<string, Array<Record<number, number>>>()
  for (const s of plan.services) {
    const replicas: Array<Record<number, number>> = []
    for (let i = 0; i < s.replicas; i++) {
      const map: Record<number, number> = {}
      for (const p of s.ports) {
        const published = s.published.find((x) => x.container === p)
        map[p] = published !== undefined ? published.host : await freePort()
      }
      replicas.push(map)
    }
    portsOf.set(s.name, replicas)
  }
  const named = new Map([...portsOf].map(([k, v]) => [k, v[0]!]))
  const volumes: Record<string, string> = {}
  for (const s of plan.services) for (const v of s.volumes) if (v.named) volumes[v.source] ??= join(dir, 'volumes', v.source)
  for (const path of Object.values(volumes)) mkdirSync(path, { recursive: true })

  try {
    for (const s of plan.services) {
      await waitForDependencies(s, plan, state)
      say(`starting ${s.name}${s.replicas > 1 ? ` (${s.replicas} replicas)` : ''}`)
      const env = Object.fromEntries(Object.entries(s.env).map(([k, v]) => [k, localValue(v, plan, named, volumes, s)]))
      state.services[s.name] = []
      if (s.kind === 'postgres') await startPostgres(s, env, named.get(s.name)![5432]!, state)
      else if (s.kind === 'haproxy') await startHaproxy(s, portsOf, state)
      else {
        for (const [i, ports] of portsOf.get(s.name)!.entries()) {
          // Compiled, as the image runs them (built once above): no TypeScript loader in each replica.
          const argv = s.kind === 'gateway'
            ? [process.execPath, 'scripts/start.mjs']
            : [process.execPath, 'scripts/cms.mjs', ...s.args]
          const own: Record<string, string> = {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: process.env.HOME ?? dir,
            NODE_ENV: 'production',
            CMS_DATA_DIR: join(dir, 'data', `${s.name}.${i + 1}`),
            ...env,
            ...(s.kind === 'gateway' ? { HOST: '127.0.0.1', PORT: String(ports[8080]) } : {})
          }
          const log = join(dir, 'logs', `${s.name}.${i + 1}.log`)
          state.services[s.name]!.push({ pid: spawnLogged(argv, own, log), ports, argv, env: own, log })
          if (s.kind === 'gateway' && state.deployment === undefined && own.CMS_NAMESPACES === undefined) {
            state.deployment = own.CMS_DEPLOYMENT
            state.databaseUrl = own.DATABASE_URL
          }
        }
      }
      writeState(state)
    }
    // Every service with a health check healthy, and the entry point answering through the balancer.
    for (const s of plan.services) await waitHealthy(s, state)
    const entry = plan.services.find((s) => s.name === plan.entry.service)!
    if (entry.kind === 'haproxy') await waitUntil(`${state.entry}/readyz through ${entry.name}`, 60_000, async () => await answers(`${state.entry}/readyz`))
  } catch (err) {
    say(`${(err as Error).message}; stopping what was started`)
    await down(profile)
    throw err
  }
  const passwordFile = plan.services.filter((s) => s.kind === 'gateway').flatMap((s) => state.services[s.name] ?? []).map((r) => r.env.CMS_ADMIN_APP_PASSWORD_FILE).find((f) => f !== undefined)
  process.stdout.write(`logs: ${join(dir, 'logs')}\n`)
  if (state.databaseUrl !== undefined) process.stdout.write(`database: ${state.databaseUrl}\n`)
  if (passwordFile !== undefined && existsSync(passwordFile)) process.stdout.write(`administrator's application password: ${passwordFile}\n`)
  process.stdout.write(`${state.entry}\n`)
}

async function waitUntil (what: string, deadlineMs: number, check: () => Promise<boolean>, failed?: () => string | undefined): Promise<void> {
  const until = Date.now() + deadlineMs
  while (Date.now() < until) {
    if (await check()) return
    const reason = failed?.()
    if (reason !== undefined) throw new Error(reason)
    await sleep(300)
  }
  throw new Error(`${what}: not ready after ${Math.round(deadlineMs / 1000)} s`)
}

/** The slowest a service may take: its health check's own budget, but never less than 3 minutes on a busy machine. */
const budget = (s: PlannedService): number => Math.max(s.health?.deadlineMs ?? 0, 180_000)

async function waitHealthy (s: PlannedService, state: State, only?: number): Promise<void> {
  const replicas = state.services[s.name] ?? []
  for (const [i, r] of replicas.entries()) {
    if (only !== undefined && i !== only) continue
    const name = `${s.name}.${i + 1}`
    if (s.health?.kind === 'http') {
      await waitUntil(name, budget(s), async () => await answers(`http://127.0.0.1:${r.ports[8080]}${s.health!.path}`),
        () => alive(r.pid) ? undefined : `${name} exited:\n${tail(r.log)}`)
    } else if (s.kind === 'postgres' || s.kind === 'haproxy') {
      await waitUntil(name, budget(s), async () => (await Promise.all(Object.values(r.ports).map(accepts))).every(Boolean),
        () => alive(r.pid) ? undefined : `${name} exited:\n${tail(r.log)}`)
    }
  }
}

async function waitForDependencies (s: PlannedService, plan: Plan, state: State): Promise<void> {
  for (const [dep, condition] of Object.entries(s.dependsOn)) {
    const d = plan.services.find((x) => x.name === dep)!
    if (condition === 'service_healthy' || (condition === 'service_started' && d.kind === 'haproxy')) await waitHealthy(d, state)
    if (condition === 'service_completed_successfully') {
      for (const r of state.services[dep] ?? []) {
        await waitUntil(`${dep} to complete`, budget(d), async () => exits.has(r.pid))
        if (exits.get(r.pid) !== 0) throw new Error(`${dep} failed (exit ${exits.get(r.pid)}):\n${tail(r.log)}`)
      }
    }
  }
}

async function startPostgres (s: PlannedService, env: Record<string, string>, port: number, state: State): Promise<void> {
  const user = pgUser()
  const base = join(state.dir, 'postgres')
  mkdirSync(base)
  if (user !== undefined) {
    const uid = Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim())
    const gid = Number(spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim())
    chownSync(base, uid, gid)
    // The user must reach its directory through the state directory.
    spawnSync('chmod', ['755', state.dir])
  }
  const data = join(base, 'data')
  const superuser = env.POSTGRES_USER ?? 'postgres'
  const database = env.POSTGRES_DB ?? superuser
  state.postgres = { data, user }
  writeState(state)
  const init = asPg(user, [findBin('initdb'), '-D', data, '-U', superuser, '--auth=trust', '-E', 'UTF8', '--no-sync'])
  if (init.status !== 0) throw new Error(`initdb failed:\n${init.out}`)
  if (database !== 'postgres') {
    // As the image's entry point does: POSTGRES_DB made before the server takes connections.
    const made = asPg(user, [findBin('postgres'), '--single', '-D', data, 'postgres'], `CREATE DATABASE "${database.replace(/"/g, '""')}";\n`)
    if (made.status !== 0) throw new Error(`creating database ${database} failed:\n${made.out}`)
  }
  const log = join(base, 'server.log')
  const options = `-p ${port} -k ${base} -c listen_addresses=127.0.0.1 -c max_connections=200`
  const started = asPg(user, [findBin('pg_ctl'), '-D', data, '-l', log, '-w', '-t', '120', '-o', options, 'start'])
  if (started.status !== 0) throw new Error(`PostgreSQL did not start:\n${started.out}\n${tail(log)}`)
  const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
  state.services[s.name] = [{ pid, ports: { 5432: port }, argv: [], env, log }]
}

async function startHaproxy (s: PlannedService, portsOf: Map<string, Array<Record<number, number>>>, state: State): Promise<void> {
  const cfg = readFileSync(join(root, s.haproxyConfig!), 'utf8')
  const binds = portsOf.get(s.name)![0]!
  const replicas: Record<string, number[]> = {}
  for (const [name, list] of portsOf) replicas[name] = list.map((p) => p[8080]!).filter((p) => p !== undefined)
  const mounts = s.volumes.filter((v) => !v.named && v.target !== '/usr/local/etc/haproxy/haproxy.cfg').map((v) => ({ from: join(root, v.source), to: v.target }))
  const file = join(state.dir, `${s.name}.haproxy.cfg`)
  writeFileSync(file, localHaproxyConfig(cfg, binds, replicas, mounts))
  const check = spawnSync(findBin('haproxy'), ['-c', '-q', '-f', file], { encoding: 'utf8' })
  if (check.status !== 0) throw new Error(`HAProxy refuses ${file}:\n${check.stdout}${check.stderr}`)
  const log = join(state.dir, 'logs', `${s.name}.1.log`)
  const argv = [findBin('haproxy'), '-db', '-f', file]
  state.services[s.name] = [{ pid: spawnLogged(argv, { PATH: process.env.PATH ?? '/usr/bin:/bin' }, log), ports: binds, argv, env: {}, log }]
}

async function stopPid (pid: number): Promise<void> {
  if (!alive(pid)) return
  // Each service was started in a process group of its own (detached): signal the group.
  try { process.kill(-pid, 'SIGTERM') } catch { try { process.kill(pid, 'SIGTERM') } catch {} }
  for (let i = 0; i < 50 && alive(pid); i++) await sleep(200)
  if (alive(pid)) { try { process.kill(-pid, 'SIGKILL') } catch { try { process.kill(pid, 'SIGKILL') } catch {} } }
}

async function down (profile: string): Promise<void> {
  const state = readState(profile)
  if (state === undefined) { say(`${profile} is not up`); return }
  for (const [name, replicas] of Object.entries(state.services).reverse()) {
    if (state.postgres !== undefined && replicas.some((r) => r.argv.length === 0)) continue
    await Promise.all(replicas.map(async (r) => { await stopPid(r.pid) }))
    say(`stopped ${name}`)
  }
  if (state.postgres !== undefined && existsSync(state.postgres.data)) {
    asPg(state.postgres.user, [findBin('pg_ctl'), '-D', state.postgres.data, '-m', 'fast', '-w', 'stop'])
    say('stopped PostgreSQL')
  }
  if (state.dir.startsWith(tmpdir()) && statSync(state.dir, { throwIfNoEntry: false }) !== undefined) rmSync(state.dir, { recursive: true, force: true })
  rmSync(stateFile(profile), { force: true })
}

async function replicaCommand (command: 'kill' | 'start', profile: string, service: string, n: number): Promise<void> {
  const state = readState(profile)
  const r = state?.services[service]?.[n - 1]
  if (state === undefined || r === undefined) throw new Error(`no replica ${n} of ${service} in ${profile}`)
  if (command === 'kill') {
    try { process.kill(-r.pid, 'SIGKILL') } catch { try { process.kill(r.pid, 'SIGKILL') } catch {} }
    say(`killed ${service}.${n} (pid ${r.pid})`)
    return
  }
  if (alive(r.pid)) throw new Error(`${service}.${n} is running`)
  r.pid = spawnLogged(r.argv, r.env, r.log)
  writeState(state)
  const plan = planOf(readFileSync(composeFile, 'utf8'), profile, { ...process.env, CMS_PORT: new URL(state.entry).port }, root)
  await waitHealthy(plan.services.find((s) => s.name === service)!, state, n - 1)
  say(`started ${service}.${n} (pid ${r.pid})`)
}

const [command, profile, ...rest] = process.argv.slice(2)
const usage = 'usage: scripts/topology.sh up|down|env|state <profile> | kill|start <profile> <service> <replica>'
try {
  if (profile === undefined) throw new Error(usage)
  switch (command) {
    case 'up': await up(profile); break
    case 'down': await down(profile); break
    case 'state': process.stdout.write(readFileSync(stateFile(profile), 'utf8')); break
    case 'env': {
      const state = readState(profile)
      if (state === undefined) throw new Error(`${profile} is not up`)
      process.stdout.write(`CMS_TEST_TARGET=${state.entry}\nCMS_TEST_TARGET_DATABASE_URL=${state.databaseUrl ?? ''}\nCMS_TEST_TARGET_PROFILE=${state.deployment ?? ''}\n`)
      break
    }
    case 'kill':
    case 'start':
      await replicaCommand(command, profile, rest[0] ?? '', Number(rest[1] ?? 1))
      break
    default: throw new Error(usage)
  }
} catch (err) {
  process.stderr.write(`topology: ${(err as Error).message}\n`)
  process.exitCode = 1
}
