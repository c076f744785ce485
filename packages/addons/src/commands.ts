/**
 * `cms menu ...`: the navigation menus the mega menu reads (menus.ts). The
 * reference gives the add-ons no route that writes menus, so they are
 * written here: menus, their items, and the builder template an item opens
 * as its mega-menu panel.
 */
import { parseArgs } from 'node:util'
import { CommandUsageError, type PackageCommand } from '@cms/core'
import { LIBRARY_TYPE } from '@cms/builder'
import { menus } from './menus.js'

const usage = `Usage:
  cms menu list [--json]                      menus with their items
  cms menu create <name>                      a new menu (prints its id)
  cms menu add-item <menu id> <title> [--url URL] [--post ID] [--parent ID] [--position N] [--draft] [--mega TEMPLATE ID]
                                              an item (prints its id)
  cms menu set-mega <item id> <template id|none>
                                              the builder template shown as the item's mega-menu panel

Flags:
  -h, --help  show this help`

const id = (v: string | undefined, what: string): number => {
  if (v === undefined || !/^\d{1,10}$/.test(v) || Number(v) < 1 || Number(v) > 2_147_483_647) throw new CommandUsageError(`${what} takes an id`)
  return Number(v)
}

export const addonsCommands: readonly PackageCommand[] = [{
  name: 'menu',
  summary: 'navigation menus and their mega-menu panels',
  writes: ['create', 'add-item', 'set-mega'],
  usage,
  async run (args, ctx) {
    let parsed
    try {
      parsed = parseArgs({
        args,
        allowPositionals: true,
        options: {
          json: { type: 'boolean' },
          url: { type: 'string' },
          post: { type: 'string' },
          parent: { type: 'string' },
          position: { type: 'string' },
          draft: { type: 'boolean' },
          mega: { type: 'string' },
          help: { type: 'boolean', short: 'h' }
        }
      })
    } catch (err) {
      throw new CommandUsageError((err as Error).message.split('\n')[0]!)
    }
    const { values: v, positionals: [sub, ...rest] } = parsed
    if (v.help === true || sub === 'help') {
      ctx.out(usage)
      return 0
    }
    return await ctx.withServices(async (services) => {
      const store = menus(() => services.store)
      const checkTemplate = async (template: number): Promise<void> => {
        const found = await services.content.post(template)
        if (found?.post.type !== LIBRARY_TYPE) throw new CommandUsageError(`${template} is not a builder template`)
      }
      switch (sub) {
        case 'list': {
          const all = await store.list({ limit: 1000, offset: 0 })
          const out = []
          for (const m of all) out.push({ ...m, items: await store.items(m.id) })
          if (v.json === true) ctx.out(JSON.stringify(out))
          else for (const m of out) ctx.out(`${m.id}\t${m.name}\t${m.items.length} items`)
          return 0
        }
        case 'create': {
          if (rest.length !== 1 || rest[0]!.trim() === '') throw new CommandUsageError('create takes a menu name')
          ctx.out(String((await store.create(rest[0]!.trim().slice(0, 200))).id))
          return 0
        }
        case 'add-item': {
          if (rest.length !== 2) throw new CommandUsageError('add-item takes a menu id and a title')
          const menuId = id(rest[0], 'add-item')
          if ((await store.list({ include: [menuId], limit: 1, offset: 0 })).length === 0) throw new CommandUsageError(`no menu ${menuId}`)
          const mega = v.mega === undefined ? null : id(v.mega, '--mega')
          if (mega !== null) await checkTemplate(mega)
          let url = v.url ?? ''
          if (url !== '' && !/^https?:\/\//i.test(url) && !url.startsWith('/')) throw new CommandUsageError('--url takes an http(s) URL or a path')
          url = url.slice(0, 2048)
          const item = await store.addItem({
            menuId,
            title: rest[1]!.slice(0, 200),
            url,
            objectId: v.post === undefined ? 0 : id(v.post, '--post'),
            parent: v.parent === undefined ? 0 : id(v.parent, '--parent'),
            position: v.position === undefined ? 0 : /^\d{1,6}$/.test(v.position) ? Number(v.position) : (() => { throw new CommandUsageError('--position takes a number') })(),
            status: v.draft === true ? 'draft' : 'publish',
            megaTemplate: mega
          })
          ctx.out(String(item.id))
          return 0
        }
        case 'set-mega': {
          if (rest.length !== 2) throw new CommandUsageError('set-mega takes an item id and a template id (or none)')
          const template = rest[1] === 'none' ? null : id(rest[1], 'set-mega')
          if (template !== null) await checkTemplate(template)
          if (!await store.setMega(id(rest[0], 'set-mega'), template)) {
            ctx.out(`no menu item ${rest[0]!}`)
            return 1
          }
          return 0
        }
        default:
          throw new CommandUsageError(sub === undefined ? 'missing subcommand (list, create, add-item, set-mega)' : `unknown subcommand "${sub}"`)
      }
    })
  }
}]
