/**
 * assistant/v1 settings and site routes (seo-rollback-assistant-addons.md
 * §3.6), `manage_options` unless said: `settings/{name}` (the assistant's
 * JSON settings, own table, at most 64 KiB each), `website-uuid` (made once,
 * stable), `cms-options` (the site options of a whitelist, read and written
 * with each value checked by the option's own rules, in one transaction;
 * any other name a 400 naming it), `cms-options/health` (the site's checks),
 * `consent` (a same-site `return_to` only) and `token` (`use_assistant`; from
 * the `assistant` upstream, `CMS_UPSTREAM_ASSISTANT_URL`, else 503).
 */
import { randomUUID } from 'node:crypto'
import { access, constants } from 'node:fs/promises'
import { Type } from '@sinclair/typebox'
import { eq, sql } from 'drizzle-orm'
import { endpoint, invalidParam, Raw, RestError, route, scanJson, type RelativeRouteDecl } from '@cms/rest'
import { adminLink, type PackageApi } from '@cms/core'
import { dbOf, getOptions, OptionError, setOption, validateOption } from '@cms/store'
import { mayManageOptions, mayUseAssistant } from './access.js'
import { assistantErrors } from './errors.js'
import { assistantSettings } from './schema.js'

export const SETTING_MAX_BYTES = 64 * 1024
export const ASSISTANT_UPSTREAM = 'assistant'
/** The site options `cms-options` reads and writes (the notes' whitelist, under this service's option names). */
export const OPTION_WHITELIST = [
  'name', 'description', 'url', 'admin_email', 'timezone_string', 'date_format', 'time_format', 'start_of_week', 'language',
  'default_category', 'default_post_format', 'posts_per_page', 'show_on_front', 'page_on_front', 'page_for_posts', 'blog_public',
  'default_ping_status', 'default_comment_status', 'site_logo', 'site_icon'
] as const

interface HealthResult { label: string, status: 'good' | 'recommended' | 'critical', badge: { label: string, color: string }, description: string, actions: string, test: string }

export function siteRoutes (api: PackageApi): RelativeRouteDecl[] {
  const uuid = api.option('assistant_website_uuid', Type.String({ maxLength: 36 }), { default: '', description: 'The site\'s id for the assistant service (made on first read).' })
  const consent = api.option('assistant_external_scripts_consent', Type.Union([Type.Literal(''), Type.Literal('yes')]), { default: '', description: 'Whether the site owner accepted the assistant\'s terms and external scripts.' })
  const store = (): PackageApi['services']['store'] => api.services.store

  async function websiteUuid (): Promise<string> {
    const known = await uuid.get()
    if (known !== '') return known
    return await store().transaction(async (tx) => {
      await dbOf(tx).execute(sql`select pg_advisory_xact_lock(hashtext('assistant:website-uuid'))`)
      const now = await uuid.get(tx)
      if (now !== '') return now
      return await uuid.set(randomUUID(), tx)
    })
  }

  async function health (baseUrl: string): Promise<Record<string, HealthResult>> {
    const result = (test: string, label: string, status: HealthResult['status'], group: string, description: string): HealthResult =>
      ({ label, status, badge: { label: group, color: status === 'good' ? 'blue' : status === 'recommended' ? 'orange' : 'red' }, description, actions: '', test })
    const options = await getOptions(store(), ['blog_public', 'admin_email', 'timezone_string'])
    let dbOk = true
    try { await store().db.execute(sql`select 1`) } catch { dbOk = false }
    let writable = true
    try { await access(api.contentDir, constants.W_OK) } catch { writable = false }
    return {
      database: dbOk ? result('database', 'The database answers', 'good', 'Performance', 'Queries reach the database.') : result('database', 'The database does not answer', 'critical', 'Performance', 'Queries fail: check DATABASE_URL.'),
      content_directory: writable ? result('content_directory', 'The content directory is writable', 'good', 'Performance', 'Uploads, plugins and themes can be written.') : result('content_directory', 'The content directory is not writable', 'critical', 'Performance', 'Uploads, plugins and themes cannot be written: check CMS_CONTENT_DIR.'),
      https_status: baseUrl.startsWith('https:') ? result('https_status', 'The site uses HTTPS', 'good', 'Security', 'Requests reach the site over HTTPS.') : result('https_status', 'The site does not use HTTPS', 'recommended', 'Security', 'Serve the site over HTTPS and set CMS_BASE_URL.'),
      search_visibility: options.blog_public === 1 ? result('search_visibility', 'Search engines may index the site', 'good', 'Privacy', 'The site asks to be indexed.') : result('search_visibility', 'Search engines are asked not to index the site', 'recommended', 'Privacy', 'blog_public is 0.'),
      admin_email: options.admin_email !== '' ? result('admin_email', 'An administration e-mail address is set', 'good', 'Security', 'Notices have somewhere to go.') : result('admin_email', 'No administration e-mail address', 'recommended', 'Security', 'Set admin_email.'),
      timezone: result('timezone', `The site's time zone is ${String(options.timezone_string)}`, 'good', 'Performance', 'Dates are shown in the site time zone.')
    }
  }

  return [
    route({
      path: '/settings/{name}',
      vars: { name: '[a-zA-Z0-9_-]+' },
      args: { name: Type.String({ description: 'The setting\'s name (letters, digits, "_" and "-").', maxLength: 100 }) },
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: {},
          summary: 'An assistant setting ([] when it was never set)',
          response: Type.Object({ success: Type.Boolean(), data: Type.Object({ name: Type.String(), value: Type.Unknown({ description: 'Any JSON value; [] when never set.' }) }) }),
          permission: mayManageOptions.probing({ vars: { name: 'probe' } }),
          handler: async (req) => {
            const name = String(req.params.name)
            const [row] = await store().db.select().from(assistantSettings).where(eq(assistantSettings.name, name))
            return { success: true, data: { name, value: row === undefined ? [] : JSON.parse(row.value) } }
          }
        }),
        endpoint({
          methods: ['POST'],
          args: { value: Raw({ description: 'The value: any JSON (a string is taken as JSON text).' }) },
          summary: 'Write an assistant setting',
          response: Type.Object({ success: Type.Boolean(), data: Type.Object({ name: Type.String(), value: Type.Unknown(), message: Type.String() }) }),
          permission: mayManageOptions.probing({ vars: { name: 'probe' }, body: { value: { a: 1 } } }),
          handler: async (req) => {
            const name = String(req.params.name)
            const given = (req.params as Record<string, unknown>).value
            if (given === null || given === undefined) throw assistantErrors.missing_value()
            let text: string
            if (typeof given === 'string') {
              if (given.length > SETTING_MAX_BYTES) throw assistantErrors.setting_too_large()
              // JSON text nests as deep as a request body may (the kernel's limit), else it could
              // not be answered back (nor read again): `413 rest_too_much_text`, nothing stored.
              const shape = scanJson(given)
              if (shape instanceof RestError) throw shape
              try { JSON.parse(given) } catch { throw assistantErrors.invalid_json() }
              text = given
            } else {
              text = JSON.stringify(given)
            }
            if (Buffer.byteLength(text) > SETTING_MAX_BYTES) throw assistantErrors.setting_too_large(undefined, `A setting holds at most ${SETTING_MAX_BYTES} bytes of JSON.`)
            await store().db.insert(assistantSettings).values({ name, value: text })
              .onConflictDoUpdate({ target: assistantSettings.name, set: { value: text, updatedAt: new Date() } })
            return { success: true, data: { name, value: JSON.parse(text), message: 'Setting updated successfully.' } }
          }
        })
      ]
    }),
    route({
      path: '/website-uuid',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'The site\'s id for the assistant service (stable)',
        response: Type.Object({ success: Type.Boolean(), data: Type.Object({ uuid: Type.String() }) }),
        permission: mayManageOptions,
        handler: async () => ({ success: true, data: { uuid: await websiteUuid() } })
      })]
    }),
    route({
      path: '/cms-options',
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: {},
          summary: 'The site options the assistant may read and write',
          response: Type.Object({ success: Type.Boolean(), message: Type.String(), options: Type.Object({}, { additionalProperties: true, description: 'Option name -> value.' }) }),
          permission: mayManageOptions,
          handler: async (req) => {
            const options = await getOptions(store(), OPTION_WHITELIST)
            // An unset site address is the service's own, as the core's settings and the site description answer it.
            if (options.url === '') options.url = req.baseUrl
            return { success: true, message: 'Site settings retrieved successfully.', options }
          }
        }),
        endpoint({
          methods: ['POST'],
          args: { options: Raw<Record<string, unknown>>({ type: 'object', description: `Option names and values; only ${OPTION_WHITELIST.join(', ')}.` }) },
          summary: 'Write site options of the whitelist (all or none)',
          response: Type.Object({ success: Type.Boolean(), message: Type.String(), updated_options: Type.Unknown({ description: 'The options written, with their values.' }) }),
          permission: mayManageOptions.probing({ body: { options: { posts_per_page: 10 } } }),
          handler: async (req) => {
            const options = req.params.options as Record<string, unknown>
            // Names first (a body may hold 45,000 of them: their pairs listed at once were a 22-27 ms task, issue 27).
            const names = typeof options === 'object' && options !== null && !Array.isArray(options) ? Object.keys(options) : []
            if (names.length === 0) throw assistantErrors.invalid_options()
            const refused = names.find((name) => !(OPTION_WHITELIST as readonly string[]).includes(name))
            if (refused !== undefined) throw invalidParam('options', `Option "${refused.slice(0, 100)}" is not allowed to be updated.`)
            // Every value checked before anything is written.
            const values = names.map((name) => {
              const value = options[name]
              try {
                return [name, validateOption(name, value)] as const
              } catch (err) {
                if (err instanceof OptionError) throw invalidParam('options', `${name}: ${err.message}`)
                throw err
              }
            })
            const updated: Record<string, unknown> = {}
            await store().transaction(async (tx) => {
              for (const [name, value] of values) updated[name] = await setOption(tx, name, value)
            })
            return { success: true, message: 'All site options updated successfully.', updated_options: updated }
          }
        })
      ]
    }),
    route({
      path: '/cms-options/health',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'The site\'s health checks',
        response: Type.Record(Type.String(), Type.Object({ label: Type.String(), status: Type.String({ description: 'good, recommended or critical.' }) }, { additionalProperties: true }), { description: 'Check -> its result.' }),
        permission: mayManageOptions,
        handler: async (req) => await health(req.baseUrl)
      })]
    }),
    route({
      path: '/consent',
      endpoints: [endpoint({
        methods: ['POST'],
        args: { return_to: Type.Optional(Type.String({ description: 'Where the browser goes next: a URL of this site.', maxLength: 2048 })) },
        summary: 'Record the site owner\'s consent to the assistant\'s terms and external scripts',
        response: Type.Object({ message: Type.String(), redirect: Type.Unknown({ description: 'Where the browser goes next (from return_to).' }) }),
        permission: mayManageOptions,
        handler: async (req) => {
          // The assistant's admin screen when there is an admin front end (CMS_ADMIN_URL), else the site.
          const fallback = adminLink(api.services.settings, '?page=assistant&start-oauth=1') ?? `${req.baseUrl}/`
          let redirect = fallback
          const given = req.params.return_to
          if (given !== undefined && given !== '') {
            let url: URL
            try { url = new URL(given, `${req.baseUrl}/`) } catch { throw assistantErrors.invalid_return_to() }
            const origins = [req.baseUrl, req.siteUrl].filter((u) => u !== '').map((u) => new URL(u).origin)
            // Same site only: no other origin, no scheme-relative `//host`, no `javascript:`.
            if (!origins.includes(url.origin) || given.startsWith('//') || given.startsWith('\\') || /[\0-\x1f]/.test(given)) throw assistantErrors.invalid_return_to()
            redirect = url.href
          }
          await consent.set('yes')
          return { message: 'Consent granted successfully', redirect }
        }
      })]
    }),
    route({
      path: '/token',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'An access token of the assistant service for the front-end',
        response: Type.Object({ access_token: Type.String(), token_type: Type.Literal('Bearer'), expires_in: Type.Unknown({ description: 'When the token expires.' }) }),
        permission: mayUseAssistant,
        handler: async (req) => {
          const upstream = api.upstream(ASSISTANT_UPSTREAM)
          const answer = (await upstream.request('token', { method: 'POST', json: { website_uuid: await websiteUuid(), user_id: req.user.id, site_url: req.siteUrl !== '' ? req.siteUrl : req.baseUrl } })).json() as Record<string, unknown> | null
          const token = answer?.access_token
          if (typeof token !== 'string' || token === '') throw assistantErrors.no_token()
          const expires = typeof answer?.expires_in === 'number' && Number.isFinite(answer.expires_in) ? Math.max(0, Math.floor(answer.expires_in)) : 3400
          return { access_token: token, token_type: 'Bearer', expires_in: expires }
        }
      })]
    })
  ]
}
