import { parseArgs } from 'node:util'
import { packageRegistry, type InstalledPackage, type PackageRegistry, type PackageType } from '@cms/registry'
import { argvForParse, parseOrUsage, UsageError, withStore } from '../command.js'
import type { CommandGroup } from '../command.js'
import { withPackages } from '../packages.js'

/**
 * `cms plugin ...` and `cms theme ...`: the package registry from the
 * command line (the same operations, locks and log as the REST routes).
 */
function usageOf (type: PackageType): string {
  const group = type
  return `Usage:
  cms ${group} list [--json]                          installed ${group}s: slug, status, version, newer version in the source, name
  cms ${group} install <slug> [--version V] [--activate]   from the package source (the newest version unless --version)
  cms ${group} activate <slug>${type === 'theme' ? '                            switch to this theme' : ''}
${type === 'plugin' ? `  cms ${group} deactivate <slug>\n` : ''}  cms ${group} upgrade <slug> [--version V] [--activate]   replace the installed files with another version
  cms ${group} delete <slug>                          remove an inactive ${group}

${type === 'plugin' ? 'Plugins' : 'Themes'} are directories under the content directory (CMS_CONTENT_DIR, default
.data/content): ${group}s/<slug>/ with a manifest.json. Versions come from the package
source, CMS_PACKAGE_SOURCE (a directory or an http(s) base URL holding
${group}s/<slug>.<version>.zip and index.json). Every operation is written to the
operations log. With the embedded database, a running service is reached through
its socket in the data directory: no need to stop it.

Flags:
  --version V  the version to install or upgrade to
  --activate   activate it as well
  --json       print JSON
  -h, --help   show this help`
}

function line (p: InstalledPackage): string {
  return `${p.slug}\t${p.status}\t${p.version}\t${p.newVersion ?? '-'}\t${p.name}`
}

function packageCommand (type: PackageType): CommandGroup {
  const usage = usageOf(type)
  const actions = type === 'plugin' ? ['list', 'install', 'activate', 'deactivate', 'upgrade', 'delete'] : ['list', 'install', 'activate', 'upgrade', 'delete']
  return {
    name: type,
    summary: `list, install, activate${type === 'plugin' ? ', deactivate' : ''}, upgrade and delete ${type}s (from CMS_PACKAGE_SOURCE)`,
    usage,
    writes: actions.filter((a) => a !== 'list'),
    async run (args, ctx) {
      const { values, positionals } = parseOrUsage(type, () => parseArgs({
        args: argvForParse(args),
        options: { help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' }, version: { type: 'string' }, activate: { type: 'boolean' } },
        allowPositionals: true
      }))
      const [action, ...rest] = positionals
      if (values.help === true || action === 'help') {
        ctx.out(usage)
        return 0
      }
      if (action === undefined) throw new UsageError(`missing subcommand (${actions.join(', ')})`, type)
      if (!actions.includes(action)) throw new UsageError(`unknown subcommand "${action}" (expected ${actions.join(', ')})`, type)
      if (rest.length !== (action === 'list' ? 0 : 1)) throw new UsageError(`expected: cms ${type} ${action}${action === 'list' ? '' : ' <slug>'}`, type)
      const slug = rest[0]!
      const actor = { userId: 0 }
      await withStore(ctx, async (store) => {
        await withPackages(store, async (platform) => {
          const registry: PackageRegistry | undefined = platform.service(packageRegistry)
          if (registry === undefined) throw new Error('the package registry is not installed')
          if (action === 'list') {
            const list = await registry.list({ type })
            ctx.out(values.json === true ? JSON.stringify(list.map(({ dir: _dir, ...p }) => p)) : list.map(line).join('\n'))
            return
          }
          const opts = { actor, ...(values.version === undefined ? {} : { version: values.version }), ...(values.activate === true ? { activate: true } : {}) }
          const done = action === 'install'
            ? await registry.install(type, slug, opts)
            : action === 'upgrade'
              ? await registry.upgrade(type, slug, opts)
              : action === 'activate'
                ? await registry.activate(type, slug, { actor })
                : action === 'deactivate'
                  ? await registry.deactivate(type, slug, { actor })
                  : await registry.delete(type, slug, { actor })
          const verb = { install: 'installed', upgrade: 'upgraded', activate: 'activated', deactivate: 'deactivated', delete: 'deleted' }[action]
          ctx.out(values.json === true ? JSON.stringify({ action, ...(({ dir: _dir, ...p }) => p)(done) }) : `${type} ${done.slug} ${verb}: ${done.version}${action === 'delete' ? '' : `, ${done.status}`}`)
        }, ctx.env)
      })
      return 0
    }
  }
}

export const pluginCommand = packageCommand('plugin')
export const themeCommand = packageCommand('theme')
