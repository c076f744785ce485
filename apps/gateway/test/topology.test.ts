/**
 * docker-compose.yml is the one description of every topology, and
 * scripts/topology.sh starts each of its profiles as local processes (reading
 * it with scripts/topology/plan.ts). This fails when the file holds something
 * the process topology cannot start the same way, when a service's settings
 * would stop the service at start, or when the split topology stops being
 * what it is meant to be (each namespace service proxied by the gateways,
 * replicas only behind HAProxy with health checks on /readyz).
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'
import { ComposeDrift, localHaproxyConfig, planOf, profilesOf, type Plan } from '../../../scripts/topology/plan.js'
import { loadSettings } from '../src/settings.js'
import { profiles } from '../src/profiles.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..')
const compose = readFileSync(join(root, 'docker-compose.yml'), 'utf8')
const vars = { CMS_PORT: '8080' }
const plan = (text: string, profile: string): Plan => planOf(text, profile, vars, root)

t.test('every profile of the Compose file can be started as processes', async (t) => {
  t.same(profilesOf(compose), ['a', 'b', 'split-b'])
  for (const profile of profilesOf(compose)) {
    let p: Plan | undefined
    try {
      p = plan(compose, profile)
    } catch (err) {
      t.fail(`${profile}: ${(err as Error).message}`)
      continue
    }
    t.ok(p.services.some((s) => s.kind === 'postgres'), `${profile}: has its database`)
    const migrate = p.services.find((s) => s.kind === 'cli')
    t.same(migrate?.args, ['migrate'], `${profile}: a one-shot migration job`)
    for (const s of p.services.filter((x) => x.kind === 'gateway')) {
      t.same(s.dependsOn.migrate !== undefined || Object.keys(s.dependsOn).length > 0, true, `${profile}/${s.name} waits for something`)
      // A setting the service would refuse stops it at start: the Compose file must not hold one.
      t.doesNotThrow(() => loadSettings(s.env), `${profile}/${s.name}: its settings are valid`)
      t.match(s.health, { kind: 'http', path: '/readyz' }, `${profile}/${s.name}: health checked on /readyz`)
      t.ok(s.volumes.some((v) => v.named && v.source === 'content' && v.target === s.env.CMS_CONTENT_DIR), `${profile}/${s.name}: the shared content volume at CMS_CONTENT_DIR`)
    }
  }
})

t.test('split-b: namespace services behind the gateways, replicas behind HAProxy', async (t) => {
  const p = plan(compose, 'split-b')
  const byName = new Map(p.services.map((s) => [s.name, s]))
  t.equal(byName.get(p.entry.service)?.kind, 'haproxy', 'clients enter through the load balancer')
  const gateways = p.services.filter((s) => s.kind === 'gateway' && s.env.CMS_NAMESPACES === undefined)
  t.equal(gateways.length, 1)
  const gateway = gateways[0]!
  t.ok(gateway.replicas >= 2, 'two gateway replicas')
  const remote = Object.fromEntries(gateway.env.CMS_REMOTE_NAMESPACES!.split(',').map((pair) => pair.split('=') as [string, string]))
  const namespaceServices = p.services.filter((s) => s.kind === 'gateway' && s.env.CMS_NAMESPACES !== undefined)
  t.same(namespaceServices.flatMap((s) => s.env.CMS_NAMESPACES!.split(',')).sort(), Object.keys(remote).sort(), 'the gateways proxy exactly the namespaces the namespace services serve')
  t.ok(byName.get('seo')!.replicas >= 2, 'two seo/v1 replicas')
  t.same(byName.get('assistant')?.env.CMS_NAMESPACES, 'assistant/v1')
  for (const s of namespaceServices) {
    for (const ns of s.env.CMS_NAMESPACES!.split(',')) t.ok(profiles[s.env.CMS_DEPLOYMENT!]!.namespaces.includes(ns), `${ns} is a namespace of profile ${s.env.CMS_DEPLOYMENT}`)
  }
  // Every replicated service is balanced with active health checks on /readyz.
  for (const s of p.services.filter((x) => x.replicas > 1)) {
    const lb = p.services.find((x) => x.kind === 'haproxy' && readFileSync(join(root, x.haproxyConfig!), 'utf8').includes(` ${s.name}:8080 `))
    t.ok(lb, `${s.name} is behind a load balancer`)
    if (lb === undefined) continue
    const cfg = readFileSync(join(root, lb.haproxyConfig!), 'utf8')
    t.match(cfg, /option httpchk GET \/readyz/, `${lb.name}: active health checks on /readyz`)
    t.ok(lb.dependsOn[s.name] === 'service_healthy', `${lb.name} starts once ${s.name} is healthy`)
  }
  t.ok(gateway.dependsOn.assistant === 'service_healthy' && gateway.dependsOn['seo-lb'] !== undefined, 'the gateways start after the services they proxy')

  // As topology.sh runs it: one server line per replica, the DNS resolution gone, error files local.
  const seoLb = byName.get('seo-lb')!
  const local = localHaproxyConfig(readFileSync(join(root, seoLb.haproxyConfig!), 'utf8'), { 8080: 41000, 8404: 41001 }, { seo: [42001, 42002] }, [{ from: '/repo/errors', to: '/usr/local/etc/haproxy/errors' }])
  t.match(local, /server seo1 127\.0\.0\.1:42001 check/)
  t.match(local, /server seo2 127\.0\.0\.1:42002 check/)
  t.match(local, /bind 127\.0\.0\.1:41000/)
  t.notMatch(local, /^\s*(resolvers|server-template)\s|\sresolvers docker/m, 'no DNS resolution')
  t.match(local, /errorfile 503 \/repo\/errors\/seo-503\.http/)
})

t.test('drift is caught: what topology.sh could not start fails the plan', async (t) => {
  const service = (extra: string): string => compose.replace(/\nservices:\n/, `\nservices:\n  extra:\n    profiles: [split-b]\n${extra}`)
  const cases: Array<[string, string, RegExp]> = [
    ['an image it cannot run', service('    image: redis:7\n'), /image "redis:7"/],
    ['a key it does not apply', service('    build: .\n    network_mode: host\n'), /"network_mode"/],
    ['a command of the image it does not know', service('    build: .\n    command: ["node", "other.js"]\n'), /command \["node","other.js"\]/],
    ['a dependency outside the profile', service('    build: .\n    depends_on:\n      gateway-a:\n        condition: service_healthy\n'), /depends on gateway-a/],
    ['an address naming a replicated service', service('    build: .\n    environment:\n      CMS_REMOTE_NAMESPACES: seo/v1=http://seo:8080\n'), /names seo, which has 2 replicas/],
    ['an address naming no service', service('    build: .\n    environment:\n      CMS_REMOTE_NAMESPACES: seo/v1=http://nowhere:8080\n'), /names nowhere:8080/],
    ['a health check it cannot run', service('    build: .\n    healthcheck:\n      test: ["CMD", "curl", "-f", "http://localhost:8080/"]\n'), /health check/],
    ['a second entry point', service('    build: .\n    ports:\n      - "9000:8080"\n'), /2 services publish a port/]
  ]
  for (const [what, text, problem] of cases) {
    try {
      plan(text, 'split-b')
      t.fail(`${what}: accepted`)
    } catch (err) {
      t.ok(err instanceof ComposeDrift, what)
      t.match((err as Error).message, problem, what)
    }
  }
})
