/**
 * `GET /cms/v2/settings` and `POST|PUT|PATCH /cms/v2/settings` (manage_options):
 * the site options clients may read and change, under the core's names
 * (`title` is the `name` option...), then every option a package registered
 * with `showInRest`. Each value is checked by its schema and by the option's
 * own rules; all are written in one transaction, so one invalid value writes
 * nothing. The answer is always the whole set.
 */
import { Type } from '@sinclair/typebox'
import { can, endpoint, RestError, route, Raw, unvalidated, validateArgs, type ArgSpec, type JsonSchema, type RestRequest, type RelativeRouteDecl } from '@cms/rest'
import { getOptions, knownOptions, OptionError, optionSpec, resetOption, setOption, validateOption, type OptionValue, type Store } from '@cms/store'
import type { Services } from './services.js'

interface RestSetting {
  /** The name clients use. */
  name: string
  /** The site option it reads and writes. */
  option: string
  schema: JsonSchema
}

/** The core's settings in the core's order: REST name, option, label, description, format. */
const CORE_SETTINGS: ReadonlyArray<readonly [string, string, string, string, string?]> = [
  ['title', 'name', 'Title', 'Site title.'],
  ['description', 'description', 'Tagline', 'Site tagline.'],
  ['url', 'url', 'Site Address (URL)', 'Site URL.', 'uri'],
  ['email', 'admin_email', 'Administration Email Address', 'This address is used for admin purposes, like new user notification.', 'email'],
  ['timezone', 'timezone_string', 'Timezone', 'A city in the same timezone as you.'],
  ['date_format', 'date_format', 'Date Format', 'A date format for all date strings.'],
  ['time_format', 'time_format', 'Time Format', 'A time format for all time strings.'],
  ['start_of_week', 'start_of_week', 'Week Starts On', 'A day number of the week that the week should start on.'],
  ['language', 'language', 'Site Language', 'Site locale code.'],
  ['use_smilies', 'use_smilies', '', 'Convert emoticons like :-) and :-P to graphics on display.', 'boolean'],
  ['default_category', 'default_category', 'Default Post Category', 'Default post category.'],
  ['default_post_format', 'default_post_format', 'Default Post Format', 'Default post format.'],
  ['posts_per_page', 'posts_per_page', 'Maximum posts per page', 'Blog pages show at most.'],
  ['show_on_front', 'show_on_front', 'Show on front', 'What to show on the front page'],
  ['page_on_front', 'page_on_front', 'Page on front', 'The ID of the page that should be displayed on the front page'],
  ['page_for_posts', 'page_for_posts', 'Page for posts', 'The ID of the page that should display the latest posts'],
  ['default_ping_status', 'default_ping_status', 'Default Ping Status', 'Allow link notifications from other blogs (pingbacks and trackbacks) on new articles.'],
  ['default_comment_status', 'default_comment_status', 'Default Comment Status', 'Allow people to submit comments on new posts.'],
  ['site_logo', 'site_logo', 'Logo', 'Site logo.'],
  ['site_icon', 'site_icon', 'Icon', 'Site icon.']
]

/** The schema of a setting, from its option's type, default, enum and bounds. */
function schemaOf (option: string, title: string, description: string, format?: string): JsonSchema {
  const spec = optionSpec(option)!
  // A switch stored as 0 or 1 is a boolean to clients, as the core shows it.
  // The core registers it without a label: no title.
  if (format === 'boolean') return { ...(title === '' ? {} : { title }), description, type: 'boolean', default: spec.default === 1 }
  const schema: JsonSchema = { title, description, type: spec.type, default: spec.default }
  if (format !== undefined) schema.format = format
  if (spec.enum !== undefined) schema.enum = [...spec.enum]
  if (spec.minimum !== undefined) schema.minimum = spec.minimum
  if (spec.maximum !== undefined) schema.maximum = spec.maximum
  return schema
}

/** Every setting, core ones first; read afresh so options registered late are served too. */
export function restSettings (): RestSetting[] {
  const out: RestSetting[] = CORE_SETTINGS.map(([name, option, title, description, format]) => ({ name, option, schema: schemaOf(option, title, description, format) }))
  const core = new Set(CORE_SETTINGS.map(([, option]) => option))
  const taken = new Set(out.map((s) => s.name))
  for (const option of knownOptions) {
    const shown = optionSpec(option)?.showInRest
    if (core.has(option) || shown === undefined || shown === false) continue
    const extra = shown === true ? {} : shown
    const name = extra.name ?? option
    if (taken.has(name)) continue
    taken.add(name)
    out.push({ name, option, schema: schemaOf(option, extra.title ?? option, optionSpec(option)!.description, extra.format) })
  }
  return out
}

function settingsSchema (settings: RestSetting[]): JsonSchema {
  return {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: 'settings',
    type: 'object',
    properties: Object.fromEntries(settings.map((s) => [s.name, s.schema]))
  }
}

/** The stored values under their REST names (an empty site URL means the request's). */
async function currentSettings (store: Store, settings: RestSetting[], baseUrl: string): Promise<Record<string, OptionValue | boolean>> {
  const values = await getOptions(store, settings.map((s) => s.option))
  const out: Record<string, OptionValue | boolean> = {}
  for (const s of settings) {
    const value = values[s.option]!
    out[s.name] = s.option === 'url' && value === '' ? baseUrl : s.schema.type === 'boolean' ? value === 1 : value
  }
  return out
}

function invalidOptions (failures: Array<[string, OptionError]>): RestError {
  const params: Record<string, string> = {}
  const details: Record<string, unknown> = {}
  for (const [name, err] of failures) {
    params[name] = err.message
    details[name] = { code: 'rest_invalid_param', message: err.message, data: null }
  }
  return new RestError('rest_invalid_param', `Invalid parameter(s): ${Object.keys(params).join(', ')}`, 400, { params, details })
}

/** The settings of a fresh site at https://cms.example.com, for the OpenAPI document's examples. */
const EXAMPLE_SETTINGS = {
  title: 'My CMS Site',
  description: '',
  url: 'https://cms.example.com',
  email: 'admin@example.com',
  timezone: 'UTC',
  date_format: 'F j, Y',
  time_format: 'g:i a',
  start_of_week: 1,
  language: 'en_US',
  use_smilies: true,
  default_category: 1,
  default_post_format: '0',
  posts_per_page: 10,
  show_on_front: 'posts',
  page_on_front: 0,
  page_for_posts: 0,
  default_ping_status: 'open',
  default_comment_status: 'open',
  site_logo: 0,
  site_icon: 0,
  require_name_email: 1,
  comment_moderation: 0,
  comment_previously_approved: 1,
  comment_max_links: 2,
  moderation_keys: '',
  disallowed_keys: '',
  thread_comments: 1,
  thread_comments_depth: 5,
  close_comments_for_old_posts: 0,
  close_comments_days_old: 14,
  comment_flood_seconds: 15,
  show_avatars: 1
}

export function settingsRoutes ({ store }: Services): RelativeRouteDecl[] {
  const permission = can('manage_options', { why: 'CONVENTIONS §4: site settings need manage_options' })

  const read = async (req: RestRequest): Promise<Record<string, OptionValue | boolean>> => await currentSettings(store, restSettings(), req.baseUrl)

  const update = async (req: RestRequest): Promise<Record<string, OptionValue | boolean>> => {
    const settings = restSettings()
    const current = await currentSettings(store, settings, req.baseUrl)
    const given: Record<string, unknown> = {}
    const checks: ArgSpec[] = []
    const resets: RestSetting[] = []
    for (const s of settings) {
      if (!Object.hasOwn(req.params, s.name)) continue
      const value = req.params[s.name]
      if (value === undefined) continue
      // null resets the option to its default; the value already set is no change.
      if (value === null) resets.push(s)
      else if (value !== current[s.name]) {
        given[s.name] = value
        checks.push({ name: s.name, schema: s.schema, required: false })
      }
    }
    // The schema first (every failure at once, in the core's words), then the option's own rules.
    const parsed = validateArgs(checks, given)
    const writes: Array<[RestSetting, OptionValue]> = []
    const failures: Array<[string, OptionError]> = []
    for (const s of settings) {
      if (!Object.hasOwn(given, s.name)) continue
      try {
        const value = s.schema.type === 'boolean' ? (parsed[s.name] === true ? 1 : 0) : parsed[s.name]
        writes.push([s, validateOption(s.option, value)])
      } catch (err) {
        if (!(err instanceof OptionError)) throw err
        failures.push([s.name, err])
      }
    }
    if (failures.length > 0) throw invalidOptions(failures)
    if (writes.length > 0 || resets.length > 0) {
      await store.transaction(async (tx) => {
        for (const [s, value] of writes) await setOption(tx, s.option, value)
        for (const s of resets) await resetOption(tx, s.option)
      })
    }
    return await currentSettings(store, settings, req.baseUrl)
  }

  const settings = restSettings()
  // Update arguments: each setting without its default (an update changes only what it names).
  const updateArgs = Object.fromEntries(settings.map((s) => {
    const { default: _default, ...shown } = s.schema
    return [s.name, unvalidated(Type.Optional(Raw(shown)))]
  }))
  return [route({
    path: '/settings',
    schema: settingsSchema(settings),
    endpoints: [
      endpoint({ methods: ['GET'], summary: 'Read the site settings', example: { response: EXAMPLE_SETTINGS }, args: {}, permission, handler: read }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        summary: 'Change site settings',
        // Only the settings named change; every setting is answered.
        example: { request: { title: 'My site', description: 'News from the team' }, response: { ...EXAMPLE_SETTINGS, title: 'My site', description: 'News from the team' } },
        args: updateArgs,
        permission: permission.probing({ body: { description: 'Probe tagline' } }),
        handler: update
      })
    ]
  })]
}
