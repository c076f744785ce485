/**
 * builder/v1 checklist (builder-family.md §2.7): the launch checklist of
 * the current user, for administrators (`manage_options`). Five steps in
 * order, each with its config; whether each is complete is computed live
 * from the site (logo set, custom colours and typography in the kit, three
 * builder pages, a header template with display conditions, a static front
 * page). A step whose completion is immutable is, once complete, marked so
 * for good (saved). The progress is the user's (user meta
 * `builder_checklist`). POST, PUT and PATCH of a step or of the progress
 * are alike (the real product has no POST handler and fails). The item
 * routes with digit ids (`/checklist/{id}`, `GET /checklist/steps/{id}`)
 * answer `404 rest_invalid_step_id`: no step has a digit id (the real
 * product answers 405 or 500). A step write naming no step is `400
 * rest_invalid_param` (the id is one of the steps).
 */
import { Type } from '@sinclair/typebox'
import { endpoint, handlerChecked, invalidParam, route, type RelativeRouteDecl, type RestRequest, neverSucceeds } from '@cms/rest'
import { getOptions } from '@cms/store'
import { adminLink, type PackageApi } from '@cms/core'
import { mayManageOptions } from './access.js'
import { builderErrors } from './errors.js'
import { indexParams } from './favorites.js'
import { LIBRARY_TYPE, type KitStore } from './kit.js'
import { USER_KEYS, type UserState } from './user-state.js'

interface StepProgress { is_marked_completed: boolean, is_immutable_completed: boolean, is_absolute_completed?: boolean }
interface Progress {
  last_opened_timestamp: number | null
  first_closed_checklist_in_editor: boolean
  is_popup_minimized: boolean
  builder_editor_counter: number
  steps: Record<string, StepProgress>
}

interface StepConfig {
  id: string
  title: string
  description: string
  learn_more_text: string
  learn_more_url: string
  is_completion_immutable: boolean
  cta_text: string
  /** The admin screen of the step (CMS_ADMIN_URL), null without an admin front end. */
  cta_url: string | null
  image_src: string
  promotion_data: null | { url: string, text: string, icon: string }
}

const LEARN_MORE = 'https://docs.cms.invalid/builder/getting-started/'

function configs (home: string, admin: (page: string) => string | null): StepConfig[] {
  const step = (id: string, title: string, description: string, immutable: boolean, cta: string, url: string | null, promotion: StepConfig['promotion_data'] = null): StepConfig =>
    ({ id, title, description, learn_more_text: 'Learn more', learn_more_url: LEARN_MORE, is_completion_immutable: immutable, cta_text: cta, cta_url: url, image_src: `${home}/cms-content/plugins/builder/assets/checklist/${id}.svg`, promotion_data: promotion })
  return [
    step('add_logo', 'Add your logo', 'Upload your logo so visitors recognise your site.', true, 'Go to Site Identity', admin('options-general.php')),
    step('set_fonts_and_colors', 'Set up your Global Fonts & Colors', 'Define the colours and fonts your pages share.', true, 'Go to Global Colors', admin('post.php?action=builder&active-document=kit')),
    step('create_pages', 'Create your first 3 pages', 'Build the pages your site needs.', true, 'Create a new page', admin('post-new.php?post_type=page')),
    step('setup_header', 'Set up a header for your site', 'Give every page the same header.', true, 'Add a header', admin(`edit.php?post_type=${LIBRARY_TYPE}`), { url: 'https://docs.cms.invalid/builder/theme-builder/', text: 'Upgrade Now', icon: 'upgrade' }),
    step('assign_homepage', 'Assign a homepage', 'Choose the page visitors see first.', false, 'Assign homepage', admin('options-reading.php'))
  ]
}

const STEP_IDS = ['add_logo', 'set_fonts_and_colors', 'create_pages', 'setup_header', 'assign_homepage']

function progressOf (stored: unknown): Progress {
  const s = (typeof stored === 'object' && stored !== null ? stored : {}) as Partial<Progress>
  const steps: Record<string, StepProgress> = {}
  for (const id of STEP_IDS) {
    const p = (s.steps as Record<string, Partial<StepProgress>> | undefined)?.[id] ?? {}
    steps[id] = { is_marked_completed: p.is_marked_completed === true, is_immutable_completed: p.is_immutable_completed === true, ...(typeof p.is_absolute_completed === 'boolean' ? { is_absolute_completed: p.is_absolute_completed } : {}) }
  }
  return {
    last_opened_timestamp: typeof s.last_opened_timestamp === 'number' ? s.last_opened_timestamp : null,
    first_closed_checklist_in_editor: s.first_closed_checklist_in_editor === true,
    is_popup_minimized: s.is_popup_minimized === true,
    builder_editor_counter: typeof s.builder_editor_counter === 'number' ? s.builder_editor_counter : 0,
    steps
  }
}

function bool (params: Record<string, unknown>, name: string): boolean | undefined {
  const v = params[name]
  if (v === undefined || v === null) return undefined
  if (typeof v === 'boolean') return v
  if (v === 'true' || v === '1' || v === 1) return true
  if (v === 'false' || v === '0' || v === 0 || v === '') return false
  throw invalidParam(name, `${name} is not of type boolean.`)
}

const STEP_STATE = Type.Object({ is_marked_completed: Type.Boolean(), is_immutable_completed: Type.Boolean(), is_absolute_completed: Type.Optional(Type.Boolean()) })
const PROGRESS_FIELDS = {
  last_opened_timestamp: Type.Union([Type.Integer(), Type.Null()]),
  first_closed_checklist_in_editor: Type.Boolean(),
  is_popup_minimized: Type.Boolean(),
  builder_editor_counter: Type.Integer(),
  should_open_in_editor: Type.Boolean()
}
const PROGRESS = Type.Object({ ...PROGRESS_FIELDS, steps: Type.Record(Type.String(), STEP_STATE) })
const STEP = Type.Object({ is_marked_completed: Type.Boolean(), is_immutable_completed: Type.Boolean(), is_absolute_completed: Type.Boolean(), config: Type.Object({ id: Type.String(), title: Type.String() }) })

export function checklistRoutes (api: PackageApi, kits: KitStore, state: UserState): RelativeRouteDecl[] {
  const admin = (page: string): string | null => adminLink(api.services.settings, page)
  const { store } = api.services

  /** Whether each step is done, from the site as it is now. */
  async function absolute (): Promise<Record<string, boolean>> {
    const options = await getOptions(store, ['site_logo', 'show_on_front', 'page_on_front'])
    const kit = await kits.current()
    const builderPages = await api.content.posts({ type: 'page', status: ['publish', 'future', 'draft', 'pending', 'private'], meta: [{ key: '_builder_edit_mode', equals: 'builder' }], perPage: 3 })
    const headers = await api.content.posts({ type: LIBRARY_TYPE, status: ['publish'], meta: [{ key: '_builder_template_type', equals: 'header' }, { key: '_builder_conditions' }], perPage: 1 })
    return {
      add_logo: Number(options.site_logo) > 0,
      set_fonts_and_colors: kit !== undefined && kit.settings.custom_colors.length > 0 && kit.settings.custom_typography.length > 0,
      create_pages: builderPages.total >= 3,
      setup_header: headers.total > 0,
      assign_homepage: options.show_on_front === 'page' && Number(options.page_on_front) > 0
    }
  }

  /** The steps with their state; immutable completion flipped and saved when reached. */
  async function steps (req: RestRequest<any>): Promise<Array<Record<string, unknown>>> {
    const progress = progressOf(await state.get(req.user.id, USER_KEYS.checklist))
    const done = await absolute()
    let changed = false
    const out = configs(req.baseUrl, admin).map((config) => {
      const p = progress.steps[config.id]!
      if (config.is_completion_immutable && done[config.id] === true && !p.is_immutable_completed) {
        p.is_immutable_completed = true
        p.is_marked_completed = false
        changed = true
      }
      return { is_marked_completed: p.is_marked_completed, is_immutable_completed: p.is_immutable_completed, is_absolute_completed: done[config.id] === true, config }
    })
    if (changed) {
      // Flipped on the value read under the lock, so a concurrent step update is kept.
      await state.update(req.user.id, USER_KEYS.checklist, (stored) => {
        const latest = progressOf(stored)
        for (const config of configs(req.baseUrl, admin)) {
          const p = latest.steps[config.id]!
          if (config.is_completion_immutable && done[config.id] === true && !p.is_immutable_completed) {
            p.is_immutable_completed = true
            p.is_marked_completed = false
          }
        }
        return latest
      })
    }
    return out
  }

  async function progressAnswer (userId: number): Promise<Record<string, unknown>> {
    const progress = progressOf(await state.get(userId, USER_KEYS.checklist))
    return { data: { ...progress, should_open_in_editor: progress.builder_editor_counter === 2 && progress.last_opened_timestamp === null } }
  }

  const noStep = (): never => { throw builderErrors.rest_invalid_step_id() }
  const digitId = { id: Type.String({ description: 'Unique identifier for the object.' }) }
  const writes = ['POST', 'PUT', 'PATCH'] as const

  return [
    route({
      path: '/checklist',
      endpoints: [endpoint({
        methods: ['GET'],
        args: indexParams(),
        summary: "The current user's checklist: progress and steps",
        response: Type.Object({ data: Type.Object({ ...PROGRESS_FIELDS, steps: Type.Array(STEP) }) }),
        permission: mayManageOptions,
        handler: async (req) => ({ data: { ...(await progressAnswer(req.user.id)).data as object, steps: await steps(req) } })
      })]
    }),
    route({
      path: '/checklist/{id}',
      vars: { id: '[\\d]+' },
      endpoints: [endpoint({ methods: ['GET'], args: digitId, summary: 'No checklist item has a digit id (404)', response: neverSucceeds('no checklist item has a digit id (404 rest_invalid_step_id).'), permission: mayManageOptions.probing({ vars: { id: '1' } }), handler: noStep })]
    }),
    route({
      path: '/checklist/steps',
      endpoints: [endpoint({ methods: ['GET'], args: {}, summary: 'The checklist steps in order', response: Type.Object({ data: Type.Array(STEP) }), permission: mayManageOptions, handler: async (req) => ({ data: await steps(req) }) })]
    }),
    route({
      path: '/checklist/steps/{id}',
      vars: { id: '[\\d]+' },
      endpoints: [endpoint({ methods: ['GET'], args: digitId, summary: 'No step has a digit id (404)', response: neverSucceeds('no step has a digit id (404 rest_invalid_step_id).'), permission: mayManageOptions.probing({ vars: { id: '1' } }), handler: noStep })]
    }),
    route({
      path: '/checklist/steps/{id}',
      vars: { id: '[\\w_-]+' },
      endpoints: [endpoint({
        methods: writes,
        args: {
          // One of the steps, else `400 rest_invalid_param` as the real route's argument check answers (builder-family.md §2.7).
          id: Type.String({ description: 'The step id.', enum: STEP_IDS }),
          is_marked_completed: handlerChecked('The user marked the step done.'),
          is_absolute_completed: handlerChecked('The step is done on the site.'),
          is_immutable_completed: handlerChecked('The step was once done (kept).')
        },
        summary: "Update the current user's progress on a step",
        response: Type.Null(),
        permission: mayManageOptions.probing({ vars: { id: 'add_logo' }, body: { is_marked_completed: true } }),
        handler: async (req) => {
          const params = req.params as Record<string, unknown>
          const changes: Partial<StepProgress> = {}
          for (const key of ['is_marked_completed', 'is_absolute_completed', 'is_immutable_completed'] as const) {
            const v = bool(params, key)
            if (v !== undefined) changes[key] = v
          }
          await state.update(req.user.id, USER_KEYS.checklist, (stored) => {
            const progress = progressOf(stored)
            progress.steps[req.params.id] = { ...progress.steps[req.params.id]!, ...changes }
            return progress
          })
          return null
        }
      })]
    }),
    route({
      path: '/checklist/user-progress',
      endpoints: [
        endpoint({ methods: ['GET'], args: {}, summary: "The current user's checklist progress", response: Type.Object({ data: PROGRESS }), permission: mayManageOptions, handler: async (req) => await progressAnswer(req.user.id) }),
        endpoint({
          methods: writes,
          args: {
            first_closed_checklist_in_editor: handlerChecked('The user closed the checklist in the editor once.'),
            is_popup_minimized: handlerChecked('The checklist popup is minimized.'),
            builder_editor_counter: handlerChecked('How often the editor was opened.'),
            last_opened_timestamp: handlerChecked('Set to record that the checklist was opened now.')
          },
          summary: "Update the current user's checklist progress",
          response: Type.Object({ data: Type.Literal('success') }),
          permission: mayManageOptions.probing({ body: { is_popup_minimized: true } }),
          handler: async (req) => {
            const params = req.params as Record<string, unknown>
            const closed = bool(params, 'first_closed_checklist_in_editor')
            const minimized = bool(params, 'is_popup_minimized')
            const counter = params.builder_editor_counter
            if (counter !== undefined && !(Number.isInteger(Number(counter)) && Number(counter) >= 0 && Number(counter) <= 1_000_000)) throw invalidParam('builder_editor_counter', 'builder_editor_counter must be a whole number from 0.')
            await state.update(req.user.id, USER_KEYS.checklist, (stored) => {
              const progress = progressOf(stored)
              if (closed !== undefined) progress.first_closed_checklist_in_editor = closed
              if (minimized !== undefined) progress.is_popup_minimized = minimized
              if (counter !== undefined) progress.builder_editor_counter = Number(counter)
              if (params.last_opened_timestamp !== undefined) progress.last_opened_timestamp = params.last_opened_timestamp !== null && params.last_opened_timestamp !== false && params.last_opened_timestamp !== '' && params.last_opened_timestamp !== 0 && params.last_opened_timestamp !== '0' ? Math.floor(Date.now() / 1000) : null
              return progress
            })
            return { data: 'success' }
          }
        })
      ]
    })
  ]
}
