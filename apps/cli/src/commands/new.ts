/**
 * `cms new package NAME --namespace NS [--profile P]`: a working package in
 * the workspace's packages/ (scaffold/package-files.ts), found by the gateway
 * through its package.json; with `--profile`, its namespace added to that
 * profile's file. Nothing else is edited.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { baseDirOf } from '@cms/store'
import { installedPackages } from '@cms/gateway/packages'
import { profileFile } from '@cms/gateway/profiles'
import { parseOrUsage, UsageError, type CommandGroup } from '../command.js'
import { packageFiles } from '../scaffold/package-files.js'

const usage = `Usage:
  cms new package <name> --namespace <ns> [--profile <profile>] [--root <dir>]

Creates packages/<name> in the workspace: package.json (its "cms" field names
the plugin and the namespace), .taprc, tsconfig.json, a drizzle table
(src/schema.ts) with its migrations as drizzle-kit writes them, one route
family (src/items.ts: a paged list anyone may read, a validated create for a
capability of the package's own) and a test running the permission prober.
With --profile, <ns> is added to that profile's file (CMS_PROFILES' first,
else apps/gateway/profiles/<profile>.json).

Then: pnpm install (links the package), pnpm --filter @cms/<name> test.

Flags:
  --namespace <ns>   the namespace it serves, e.g. notes/v1
  --profile <name>   a profile whose file gets the namespace
  --root <dir>       the workspace root (default: the nearest folder with pnpm-workspace.yaml)
  -h, --help         show this help`

const NAME = /^[a-z][a-z0-9-]{0,40}$/
const NAMESPACE = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)+$/

export const newCommand: CommandGroup = {
  name: 'new',
  summary: 'create a package from the scaffold (cms new package <name> --namespace <ns>)',
  usage,
  async run (args, ctx) {
    const { values, positionals } = parseOrUsage('new', () => parseArgs({
      args,
      options: { namespace: { type: 'string' }, profile: { type: 'string' }, root: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true
    }))
    if (values.help === true) {
      ctx.out(usage)
      return 0
    }
    const [what, name, ...rest] = positionals
    if (what !== 'package') throw new UsageError(what === undefined ? 'missing "package"' : `unknown kind "${what}" (expected package)`, 'new')
    if (name === undefined || rest.length > 0) throw new UsageError('expected: cms new package <name> --namespace <ns>', 'new')
    if (!NAME.test(name)) throw new UsageError(`package name "${name}": lowercase letters, digits and -, starting with a letter`, 'new')
    const namespace = values.namespace
    if (namespace === undefined || !NAMESPACE.test(namespace)) throw new UsageError('--namespace: a namespace such as notes/v1', 'new')
    const taken = installedPackages.find((p) => p.name === `@cms/${name}` || p.namespaces.includes(namespace))
    if (taken !== undefined) throw new UsageError(`${taken.name} is installed already${taken.name === `@cms/${name}` ? '' : ` and serves ${namespace}`}`, 'new')

    const root = values.root === undefined ? workspaceRoot(baseDirOf(ctx.env)) : resolve(baseDirOf(ctx.env), values.root)
    const target = join(root, 'packages', name)
    if (existsSync(target)) throw new UsageError(`${target} exists already`, 'new')
    const profile = values.profile === undefined ? undefined : profileToEdit(values.profile, ctx.env)

    // Written beside it under a dot name (which discovery skips), then renamed: a running
    // discovery never sees half a package.
    const staging = join(root, 'packages', `.${name}-${process.pid}`)
    try {
      for (const [path, text] of Object.entries(packageFiles({ name, namespace }))) {
        mkdirSync(dirname(join(staging, path)), { recursive: true })
        writeFileSync(join(staging, path), text)
      }
      renameSync(staging, target)
    } finally {
      rmSync(staging, { recursive: true, force: true })
    }
    ctx.out(`created ${target} (@cms/${name}, serving ${namespace})`)
    if (profile !== undefined) {
      addNamespace(profile, namespace)
      ctx.out(`added ${namespace} to ${profile}`)
    }
    ctx.out(`next: pnpm install && pnpm --filter @cms/${name} test`)
    return 0
  }
}

/** The nearest folder at or above `from` holding pnpm-workspace.yaml. */
function workspaceRoot (from: string): string {
  let dir = resolve(from)
  for (;;) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir
    const up = dirname(dir)
    if (up === dir) throw new UsageError(`no pnpm-workspace.yaml at or above ${from} (give --root)`, 'new')
    dir = up
  }
}

function profileToEdit (name: string, env: NodeJS.ProcessEnv): string {
  const given = env.CMS_PROFILES ?? ''
  const file = profileFile(name, given === '' ? undefined : resolve(baseDirOf(env), given))
  if (file === undefined) throw new UsageError(`no profile "${name}" (a file ${name}.json among CMS_PROFILES or apps/gateway/profiles)`, 'new')
  return file
}

/** Appends the namespace to the profile file's list (kept as it is when listed already). */
function addNamespace (file: string, namespace: string): void {
  const data = JSON.parse(readFileSync(file, 'utf8')) as { namespaces: string[] }
  if (data.namespaces.includes(namespace)) return
  data.namespaces.push(namespace)
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`)
}
