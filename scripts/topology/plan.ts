/**
 * Reads docker-compose.yml (the one description of every topology) into what
 * scripts/topology.sh starts as local processes: for a Compose profile, its
 * services in start order, each with its replicas, command, environment
 * (the env file, then `environment`, with Compose's `${VAR:-default}`
 * interpolation), the ports it listens on, its health check and the
 * conditions it waits for. Anything the process topology could not start the
 * same way (a key, an image, a command, a health check, a dependency or an
 * address it does not know) is a problem listed by `planOf`, so the Compose
 * file cannot drift from what `topology.sh` runs (apps/gateway/test/topology.test.ts).
 */
import { readFileSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import { parse } from 'yaml'

/** What a service is, as far as starting it goes. */
export type Kind = 'postgres' | 'haproxy' | 'gateway' | 'cli'

export interface Volume {
  /** A named volume (`content`) or a path relative to the Compose file. */
  source: string
  named: boolean
  /** Where the container sees it. */
  target: string
}

export interface Health {
  /** `pg`: the server accepts connections; `http`: GET path answers 2xx. */
  kind: 'pg' | 'http'
  path?: string
  /** Longest wait before the service counts as failed to start, in ms. */
  deadlineMs: number
}

export interface PlannedService {
  name: string
  kind: Kind
  replicas: number
  /** Arguments after the program (`migrate` for `node dist/main.js migrate`). */
  args: string[]
  env: Record<string, string>
  /** Ports the service listens on inside its container (one per HAProxy `bind`). */
  ports: number[]
  /** Host port -> container port, as published. */
  published: Array<{ host: number, container: number }>
  health?: Health
  /** A job that runs to completion (`service_completed_successfully` is waited for). */
  oneShot: boolean
  dependsOn: Record<string, 'service_started' | 'service_healthy' | 'service_completed_successfully'>
  volumes: Volume[]
  /** HAProxy: the configuration file (path relative to the Compose file). */
  haproxyConfig?: string
}

export interface Plan {
  profile: string
  /** In an order where every service comes after what it depends on. */
  services: PlannedService[]
  /** The service and container port clients enter by (the one publishing a port). */
  entry: { service: string, port: number }
}

export class ComposeDrift extends Error {
  constructor (readonly problems: string[]) {
    super(`docker-compose.yml holds what scripts/topology.sh cannot start:\n  ${problems.join('\n  ')}`)
  }
}

/** The port every service built from this repository listens on in its container (the image's PORT). */
export const SERVICE_PORT = 8080
/** The program of the image's default command, and the command line's (the image's WORKDIR is the deployed @cms/cli). */
const CLI_COMMAND = ['node', 'dist/main.js']

const SERVICE_KEYS = new Set(['profiles', 'image', 'build', 'command', 'environment', 'env_file', 'volumes', 'ports', 'healthcheck', 'depends_on', 'deploy'])
const CONDITIONS = new Set(['service_started', 'service_healthy', 'service_completed_successfully'])

/** Compose's interpolation: `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `$$`. */
export function interpolate (text: string, vars: Record<string, string | undefined>): string {
  return text.replace(/\$\$|\$\{(\w+)(?:(:?-)([^}]*))?\}/g, (all, name: string | undefined, op: string | undefined, fallback: string | undefined) => {
    if (all === '$$') return '$'
    const value = vars[name!]
    if (op === ':-') return value === undefined || value === '' ? fallback! : value
    if (op === '-') return value ?? fallback!
    return value ?? ''
  })
}

/** `KEY=value` lines (comments and blank lines skipped), as Compose reads an env_file. */
export function parseEnvFile (text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const eq = line.indexOf('=')
    if (eq <= 0) continue
    out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim()
  }
  return out
}

/** The profiles the Compose file names. */
export function profilesOf (compose: string): string[] {
  const doc = parse(compose, { merge: true }) as { services?: Record<string, { profiles?: string[] }> }
  return [...new Set(Object.values(doc.services ?? {}).flatMap((s) => s.profiles ?? []))].sort()
}

/** Seconds or `1m30s`-style durations of Compose, in ms. */
function durationMs (value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  const m = /^(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(String(value))
  if (m === null || String(value) === '') return NaN
  return (Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 1000
}

/**
 * The plan of `profile`. `vars` are the variables of interpolation (the
 * shell's environment, as Compose takes them); `dir` is the Compose file's
 * directory (env files and bind mounts are relative to it).
 */
export function planOf (compose: string, profile: string, vars: Record<string, string | undefined>, dir: string): Plan {
  const problems: string[] = []
  const doc = parse(interpolate(compose, vars), { merge: true }) as { services?: Record<string, Record<string, any>>, volumes?: Record<string, unknown> }
  const all = doc.services ?? {}
  const chosen = Object.entries(all).filter(([, s]) => Array.isArray(s.profiles) && s.profiles.includes(profile))
  if (chosen.length === 0) problems.push(`no service has the profile "${profile}" (profiles: ${profilesOf(compose).join(', ')})`)
  const names = new Set(chosen.map(([n]) => n))
  const services: PlannedService[] = []

  for (const [name, s] of chosen) {
    const where = `service ${name}`
    for (const key of Object.keys(s)) if (!SERVICE_KEYS.has(key)) problems.push(`${where}: "${key}" is not something the process topology knows how to apply`)

    const image = typeof s.image === 'string' ? s.image : ''
    const command: string[] | undefined = s.command === undefined ? undefined : Array.isArray(s.command) ? s.command.map(String) : undefined
    if (s.command !== undefined && command === undefined) problems.push(`${where}: command must be a list (exec form)`)
    let kind: Kind | undefined
    let args: string[] = []
    if (s.build !== undefined) {
      if (command === undefined) kind = 'gateway'
      else if (CLI_COMMAND.every((part, i) => command[i] === part)) {
        kind = 'cli'
        args = command.slice(CLI_COMMAND.length)
      } else problems.push(`${where}: command ${JSON.stringify(command)} is neither the image's default (the gateway) nor ${JSON.stringify(CLI_COMMAND)} (the command line)`)
    } else if (/^postgres:\d+/.test(image)) kind = 'postgres'
    else if (/^haproxy:\d/.test(image)) kind = 'haproxy'
    else problems.push(`${where}: image "${image}" is not one the process topology can run (postgres:N, haproxy:N or this repository's build)`)
    if ((kind === 'postgres' || kind === 'haproxy') && command !== undefined) problems.push(`${where}: a command of its own is not supported`)

    // Environment: the env files, then `environment` (which wins), as Compose does.
    const env: Record<string, string> = {}
    const files = s.env_file === undefined ? [] : Array.isArray(s.env_file) ? s.env_file : [s.env_file]
    for (const file of files) {
      const path = isAbsolute(String(file)) ? String(file) : join(dir, String(file))
      try {
        Object.assign(env, parseEnvFile(readFileSync(path, 'utf8')))
      } catch {
        problems.push(`${where}: env_file ${file} cannot be read`)
      }
    }
    if (Array.isArray(s.environment)) {
      for (const entry of s.environment as string[]) {
        const eq = entry.indexOf('=')
        if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1)
      }
    } else if (s.environment !== undefined && s.environment !== null) {
      for (const [k, v] of Object.entries(s.environment as Record<string, unknown>)) env[k] = v === null ? '' : String(v)
    }

    let replicas = 1
    if (s.deploy !== undefined) {
      for (const key of Object.keys(s.deploy)) if (key !== 'replicas') problems.push(`${where}: deploy.${key} is not supported (deploy.replicas is)`)
      replicas = Number(s.deploy.replicas ?? 1)
      if (!Number.isInteger(replicas) || replicas < 1) problems.push(`${where}: deploy.replicas must be a positive integer`)
    }

    const volumes: Volume[] = []
    for (const v of (s.volumes ?? []) as unknown[]) {
      if (typeof v !== 'string') { problems.push(`${where}: volumes must use the short form (source:target[:ro])`); continue }
      const [source, target] = v.split(':')
      if (source === undefined || target === undefined) { problems.push(`${where}: volume "${v}" has no target`); continue }
      const named = !source.startsWith('.') && !source.startsWith('/')
      if (named && !(source in (doc.volumes ?? {}))) problems.push(`${where}: volume "${source}" is not declared under volumes`)
      volumes.push({ source, named, target })
    }

    let ports = kind === 'gateway' ? [SERVICE_PORT] : kind === 'postgres' ? [5432] : []
    let haproxyConfig: string | undefined
    if (kind === 'haproxy') {
      const mount = volumes.find((v) => v.target === '/usr/local/etc/haproxy/haproxy.cfg')
      if (mount === undefined || mount.named) problems.push(`${where}: HAProxy needs its configuration file bound at /usr/local/etc/haproxy/haproxy.cfg`)
      else {
        haproxyConfig = mount.source
        try {
          ports = haproxyBinds(readFileSync(join(dir, mount.source), 'utf8'))
          if (ports.length === 0) problems.push(`${where}: ${mount.source} binds no port`)
        } catch {
          problems.push(`${where}: ${mount.source} cannot be read`)
        }
      }
    }
    if (kind === 'cli') ports = []

    const published: Array<{ host: number, container: number }> = []
    for (const p of (s.ports ?? []) as unknown[]) {
      const m = /^(?:[\d.]+:)?(\d+):(\d+)$/.exec(String(p))
      if (m === null) { problems.push(`${where}: port "${String(p)}" is not host:container`); continue }
      const container = Number(m[2])
      if (!ports.includes(container)) problems.push(`${where}: publishes container port ${container}, which it does not listen on (${ports.join(', ') || 'none'})`)
      published.push({ host: Number(m[1]), container })
    }
    if (published.length > 0 && replicas > 1) problems.push(`${where}: a published port with several replicas (put a load balancer in front)`)

    let health: Health | undefined
    const hc = s.healthcheck as Record<string, unknown> | undefined
    if (hc !== undefined && hc.disable !== true) {
      const test = Array.isArray(hc.test) ? (hc.test as string[]).join(' ') : String(hc.test ?? '')
      const deadlineMs = durationMs(hc.start_period, 0) + durationMs(hc.interval, 30_000) * Number(hc.retries ?? 3)
      if (Number.isNaN(deadlineMs)) problems.push(`${where}: a health check duration is not in seconds or 1m30s form`)
      if (kind === 'postgres' && /pg_isready/.test(test)) health = { kind: 'pg', deadlineMs }
      else if (kind === 'gateway' && /fetch\('http:\/\/127\.0\.0\.1:8080(\/[\w/]*)'\)/.test(test)) {
        health = { kind: 'http', path: /fetch\('http:\/\/127\.0\.0\.1:8080(\/[\w/]*)'\)/.exec(test)![1], deadlineMs }
      } else problems.push(`${where}: health check "${test}" is not one the process topology can run (pg_isready for PostgreSQL, fetch('http://127.0.0.1:8080/path') for this repository's services)`)
    }
    if (kind === 'cli' && hc?.disable !== true) problems.push(`${where}: a one-shot command needs healthcheck.disable: true (the image's HEALTHCHECK would never pass)`)

    const dependsOn: PlannedService['dependsOn'] = {}
    const deps = s.depends_on ?? {}
    for (const [dep, spec] of Array.isArray(deps) ? (deps as string[]).map((d) => [d, {}] as const) : Object.entries(deps as Record<string, { condition?: string }>)) {
      const condition = (spec as { condition?: string }).condition ?? 'service_started'
      if (!names.has(dep)) problems.push(`${where}: depends on ${dep}, which is not in the profile "${profile}"`)
      if (!CONDITIONS.has(condition)) problems.push(`${where}: condition ${condition} on ${dep} is not supported`)
      dependsOn[dep] = condition as PlannedService['dependsOn'][string]
    }

    if (kind !== undefined) services.push({ name, kind, replicas, args, env, ports, published, health, oneShot: kind === 'cli', dependsOn, volumes, haproxyConfig })
  }

  // What depends on a health check needs one, on a completion a one-shot job.
  for (const s of services) {
    for (const [dep, condition] of Object.entries(s.dependsOn)) {
      const d = services.find((x) => x.name === dep)
      if (d === undefined) continue
      if (condition === 'service_healthy' && d.health === undefined) problems.push(`service ${s.name}: waits for ${dep} to be healthy, which has no health check`)
      if (condition === 'service_completed_successfully' && !d.oneShot) problems.push(`service ${s.name}: waits for ${dep} to complete, which is not a one-shot command`)
    }
  }

  // Every address in a setting names a service of the profile, on a port it listens on; a
  // replicated one only through a load balancer (a URL names one process).
  for (const s of services) {
    for (const [key, value] of Object.entries(s.env)) {
      for (const m of value.matchAll(/(?:\/\/|@)([a-z][\w-]*):(\d+)/g)) {
        const [host, port] = [m[1]!, Number(m[2])]
        if (host === 'localhost') continue
        const d = services.find((x) => x.name === host)
        if (d === undefined) problems.push(`service ${s.name}: ${key} names ${host}:${port}, not a service of the profile "${profile}"`)
        else if (!d.ports.includes(port)) problems.push(`service ${s.name}: ${key} names ${host}:${port}, but ${host} listens on ${d.ports.join(', ') || 'nothing'}`)
        else if (d.replicas > 1) problems.push(`service ${s.name}: ${key} names ${host}, which has ${d.replicas} replicas: go through its load balancer`)
      }
    }
    // HAProxy's servers are services of the profile.
    if (s.haproxyConfig !== undefined) {
      try {
        for (const t of serverTemplates(readFileSync(join(dir, s.haproxyConfig), 'utf8'))) {
          const d = services.find((x) => x.name === t.host)
          if (d === undefined) problems.push(`service ${s.name}: ${s.haproxyConfig} balances ${t.host}, not a service of the profile "${profile}"`)
          else if (!d.ports.includes(t.port)) problems.push(`service ${s.name}: ${s.haproxyConfig} balances ${t.host}:${t.port}, but ${t.host} listens on ${d.ports.join(', ')}`)
          else if (t.count < d.replicas) problems.push(`service ${s.name}: ${s.haproxyConfig} has ${t.count} slots for the ${d.replicas} replicas of ${t.host}`)
        }
      } catch {}
    }
  }

  const entries = services.filter((s) => s.published.length > 0)
  if (entries.length !== 1) problems.push(`profile "${profile}": ${entries.length} services publish a port; the process topology needs exactly one entry point`)

  const ordered = startOrder(services, problems)
  if (problems.length > 0) throw new ComposeDrift(problems)
  return { profile, services: ordered, entry: { service: entries[0]!.name, port: entries[0]!.published[0]!.container } }
}

function startOrder (services: PlannedService[], problems: string[]): PlannedService[] {
  const out: PlannedService[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (s: PlannedService): void => {
    if (state.get(s.name) === 'done') return
    if (state.get(s.name) === 'visiting') { problems.push(`service ${s.name}: its dependencies form a cycle`); return }
    state.set(s.name, 'visiting')
    for (const dep of Object.keys(s.dependsOn)) {
      const d = services.find((x) => x.name === dep)
      if (d !== undefined) visit(d)
    }
    state.set(s.name, 'done')
    out.push(s)
  }
  for (const s of services) visit(s)
  return out
}

/** The ports of `bind :PORT` lines. */
export function haproxyBinds (cfg: string): number[] {
  return [...cfg.matchAll(/^\s*bind\s+(?:[\d.]*|\*):(\d+)\s*$/gm)].map((m) => Number(m[1]))
}

/** `server-template NAME COUNT HOST:PORT ...` lines. */
export function serverTemplates (cfg: string): Array<{ name: string, count: number, host: string, port: number, rest: string }> {
  return [...cfg.matchAll(/^\s*server-template\s+(\S+)\s+(\d+)\s+([\w.-]+):(\d+)(.*)$/gm)]
    .map((m) => ({ name: m[1]!, count: Number(m[2]), host: m[3]!, port: Number(m[4]), rest: m[5]!.trim() }))
}

/**
 * The HAProxy configuration for local processes: each bind on its local port,
 * each `server-template` as one `server` line per running replica (the
 * template's check settings kept, its DNS resolution dropped), no resolvers
 * section, and paths inside the container (error files) turned into the
 * files bound there.
 */
export function localHaproxyConfig (cfg: string, binds: Record<number, number>, replicas: Record<string, number[]>, mounts: Array<{ from: string, to: string }>): string {
  let out = cfg.replace(/^resolvers\s[\s\S]*?(?=^\S|(?![\s\S]))/m, '')
  out = out.replace(/^(\s*bind\s+)(?:[\d.]*|\*):(\d+)\s*$/gm, (_all, lead: string, port: string) => `${lead}127.0.0.1:${binds[Number(port)]}`)
  out = out.replace(/^(\s*)server-template\s+(\S+)\s+(\d+)\s+([\w.-]+):(\d+)(.*)$/gm, (_all, lead: string, name: string, _count: string, host: string, _port: string, rest: string) => {
    const settings = rest.replace(/\s+resolvers\s+\S+/, '').replace(/\s+init-addr\s+\S+/, '').replace(/\s+resolve-\S+\s+\S+/g, '')
    return (replicas[host] ?? []).map((port, i) => `${lead}server ${name}${i + 1} 127.0.0.1:${port}${settings}`).join('\n')
  })
  for (const m of mounts) out = out.split(m.to).join(m.from)
  return out
}
