/**
 * builder/v1 globals (builder-family.md §2.1): the kit's global colours and
 * typography. Reads need `edit_posts`; writes and deletes `manage_options`.
 * Colours are exposed `{id, title, value}` (value: the colour), typography
 * `{title, id, value}` (value: the row's `typography_*` fields), each list
 * an object keyed by id, system rows first, a custom row of the same id
 * winning. POST upserts by id (never a duplicate row); DELETE removes a
 * custom row and answers it, a system row is `400 global_is_system`.
 */
import { Type } from '@sinclair/typebox'
import { endpoint, handlerChecked, route, type RelativeRouteDecl, type RestRequest } from '@cms/rest'
import { isPlainObject } from '@cms/rest'
import { mayEditPosts, mayManageOptions } from './access.js'
import { builderErrors } from './errors.js'
import type { Kit, KitStore, Row } from './kit.js'
import { filterStrings } from './sanitize.js'

type Kind = 'colors' | 'typography'

type ListKey = 'system_colors' | 'custom_colors' | 'system_typography' | 'custom_typography'

const LISTS: Record<Kind, { system: ListKey, custom: ListKey }> = {
  colors: { system: 'system_colors', custom: 'custom_colors' },
  typography: { system: 'system_typography', custom: 'custom_typography' }
}

const TITLE_MAX = 200
/** A colour value: hex, a colour function, a name, or a CSS variable; no markup. */
const COLOR = /^[#\w(),.%\s/+-]{0,100}$/

function item (kind: Kind, row: Row): Record<string, unknown> {
  if (kind === 'colors') return { id: row._id, title: row.title, value: row.color }
  const { _id, title, ...value } = row
  return { title, id: _id, value }
}

/** A global as answered: a colour's value is the colour, typography's the row's `typography_*` fields. */
function globalItem (kind: Kind): ReturnType<typeof Type.Object> {
  return Type.Object({
    id: Type.String(),
    title: Type.String(),
    value: kind === 'colors' ? Type.String({ description: 'The colour.' }) : Type.Record(Type.String(), Type.Unknown(), { description: 'The typography_* fields.' })
  })
}

function listOf (kit: Kit, kind: Kind): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const row of [...kit.settings[LISTS[kind].system], ...kit.settings[LISTS[kind].custom]]) {
    Object.defineProperty(out, row._id, { value: item(kind, row), enumerable: true, writable: true, configurable: true })
  }
  return out
}

/** The row a POST stores, or the 400 explaining why not; nothing is saved before this passes. */
async function rowFrom (req: RestRequest<any>, kind: Kind, id: string): Promise<Row> {
  const { title, value } = req.params as { title?: unknown, value?: unknown }
  if (typeof title !== 'string' || title.trim() === '' || title.length > TITLE_MAX) throw builderErrors.invalid_title({ params: { title: `title must be a non-empty string of at most ${TITLE_MAX} characters.` } })
  const cleanTitle = String((await filterStrings(title) as { value: unknown }).value)
  if (kind === 'colors') {
    if (typeof value !== 'string' || !COLOR.test(value)) throw builderErrors.rest_invalid_param({ params: { value: 'value must be a colour (a hex value, a colour function or name).' } }, 'Invalid parameter(s): value')
    return { _id: id, title: cleanTitle, color: value }
  }
  if (!isPlainObject(value)) throw builderErrors.rest_invalid_param({ params: { value: 'value must be an object of typography_* fields.' } }, 'Invalid parameter(s): value')
  const fields: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    if (!/^typography_\w{1,64}$/.test(key)) throw builderErrors.rest_invalid_param({ params: { value: `value.${key.slice(0, 64)} is not a typography field.` } }, 'Invalid parameter(s): value')
    fields[key] = v
  }
  const clean = await filterStrings(fields)
  if ('invalid' in clean) throw builderErrors.rest_invalid_param({ params: { value: `value is ${clean.invalid}.` } }, 'Invalid parameter(s): value')
  return { ...(clean.value as Record<string, unknown>), _id: id, title: cleanTitle }
}

export function globalsRoutes (kits: KitStore): RelativeRouteDecl[] {
  const idArg = { id: Type.String({ description: 'Identifier of the global.' }) }
  const itemRoute = (kind: Kind): RelativeRouteDecl => route({
    path: `/globals/${kind}/{id}`,
    vars: { id: '[\\w]+' },
    args: idArg,
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: idArg,
        summary: `One global ${kind === 'colors' ? 'colour' : 'typography'} of the kit`,
        response: globalItem(kind),
        permission: mayEditPosts.because('§2.1 globals read: edit_posts').probing({ vars: { id: 'primary' } }),
        handler: async (req) => {
          const all = listOf(await kits.load(req.siteUrl), kind)
          if (!Object.hasOwn(all, req.params.id)) throw builderErrors.global_not_found()
          return all[req.params.id]
        }
      }),
      endpoint({
        methods: ['POST'],
        args: { ...idArg, title: handlerChecked('The title.'), value: handlerChecked('The colour, or the typography_* fields.') },
        summary: `Create or update a global ${kind === 'colors' ? 'colour' : 'typography'} (upsert by id)`,
        response: globalItem(kind),
        permission: mayManageOptions.because('§2.1 globals write: manage_options').probing({ vars: { id: 'probe' }, body: { title: 'Probe', value: kind === 'colors' ? '#000000' : { typography_font_family: 'Roboto' } } }),
        handler: async (req) => {
          const row = await rowFrom(req, kind, req.params.id)
          const kit = await kits.load(req.siteUrl)
          const { system, custom } = LISTS[kind]
          const inSystem = kit.settings[system].findIndex((r) => r._id === row._id)
          if (inSystem >= 0) {
            kit.settings[system][inSystem] = row
          } else {
            const list = kit.settings[custom]
            const at = list.findIndex((r) => r._id === row._id)
            if (at >= 0) list[at] = row
            else list.push(row)
          }
          await kits.saveSettings(kit)
          return item(kind, row)
        }
      }),
      endpoint({
        methods: ['DELETE'],
        args: idArg,
        summary: `Delete a custom global ${kind === 'colors' ? 'colour' : 'typography'}`,
        response: globalItem(kind),
        permission: mayManageOptions.because('§2.1 globals delete: manage_options').probing({ vars: { id: 'nothere' } }),
        handler: async (req) => {
          const kit = await kits.load(req.siteUrl)
          const { system, custom } = LISTS[kind]
          const list = kit.settings[custom]
          const at = list.findIndex((r) => r._id === req.params.id)
          if (at < 0) {
            if (kit.settings[system].some((r) => r._id === req.params.id)) throw builderErrors.global_is_system()
            throw builderErrors.global_not_found()
          }
          const [removed] = list.splice(at, 1)
          await kits.saveSettings(kit)
          return item(kind, removed!)
        }
      })
    ]
  })
  const listRoute = (kind: Kind): RelativeRouteDecl => route({
    path: `/globals/${kind}`,
    endpoints: [endpoint({
      methods: ['GET'],
      args: {},
      summary: `The kit's global ${kind === 'colors' ? 'colours' : 'typography'}, keyed by id`,
      response: Type.Record(Type.String(), globalItem(kind), { description: 'Keyed by id.' }),
      permission: mayEditPosts,
      handler: async (req) => listOf(await kits.load(req.siteUrl), kind)
    })]
  })
  return [
    route({
      path: '/globals',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: "The kit's global colours and typography",
        response: Type.Object({ colors: Type.Record(Type.String(), globalItem('colors')), typography: Type.Record(Type.String(), globalItem('typography')) }),
        permission: mayEditPosts,
        handler: async (req) => {
          const kit = await kits.load(req.siteUrl)
          return { colors: listOf(kit, 'colors'), typography: listOf(kit, 'typography') }
        }
      })]
    }),
    listRoute('colors'),
    listRoute('typography'),
    itemRoute('colors'),
    itemRoute('typography')
  ]
}
