/**
 * hdrftr/v1 learning chapters, profile B (builder-family.md §7):
 * `get-learn-chapters` lists the chapters and their steps merged with the
 * caller's own progress; `update-learn-progress` marks one step done or
 * not done. Progress is per user, in the core's user meta
 * (`hdrftr_learn_progress`: `{chapterId: {stepId: boolean}}`), changed
 * under a per-user lock so two saves at once both count. Unknown ids are
 * `400 invalid_step` (the sibling product's rule; the real one stores
 * anything). The first time a user completes every step, a
 * `learn_completed` usage event is recorded (usage-events.ts).
 * Administrators only (`manage_options`).
 */
import { Type } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import { endpoint, route, type RelativeRouteDecl } from '@cms/rest'
import { dbOf } from '@cms/store'
import { getUserMeta, setUserMeta, type PackageApi } from '@cms/core'
import { mayUpdateLearn, mayViewLearn } from './access.js'
import { hdrftrErrors } from './errors.js'
import type { UsageEvents } from './usage-events.js'
import { DOCS_BASE } from './widgets.js'

export const LEARN_PROGRESS_KEY = 'hdrftr_learn_progress'

type Progress = Record<string, Record<string, boolean>>

interface StepSpec { id: string, title: string, description: string, action: string, pro?: true }
interface ChapterSpec { id: string, title: string, description: string, steps: StepSpec[], pro?: true }

const step = (id: string, title: string, description: string, action: string, extra: Partial<StepSpec> = {}): StepSpec => ({ id, title, description, action, ...extra })

/** The chapters (ids as the product has them; `enable-reading-progres-bar` is spelled as it is there). */
export const CHAPTERS: readonly ChapterSpec[] = [
  {
    id: 'create-header',
    title: 'Create your header',
    description: 'Build a header once and show it wherever you want.',
    steps: [
      step('setup-header', 'Set up a header', 'Create a header template and open it in the page builder.', 'Create header'),
      step('setup-display-conditions', 'Choose where it shows', 'Set the display conditions: the whole site, some pages, or some users.', 'Set conditions'),
      step('add-header-widgets', 'Add header widgets', 'Drop in the site logo, a navigation menu and a search button.', 'Add widgets')
    ]
  },
  {
    id: 'create-footer',
    title: 'Create your footer',
    description: 'Give every page the same footer, built with the page builder.',
    steps: [
      step('setup-footer', 'Set up a footer', 'Create a footer template and open it in the page builder.', 'Create footer'),
      step('setup-display-conditions', 'Choose where it shows', 'Set the display conditions of the footer.', 'Set conditions'),
      step('add-footer-widgets', 'Add footer widgets', 'Add a copyright line, a menu and your contact details.', 'Add widgets')
    ]
  },
  {
    id: 'add-powerful-widgets',
    title: 'Add powerful widgets',
    description: 'Use the plugin\'s content widgets on any page.',
    steps: [
      step('add-info-card', 'Add an info card', 'Show an icon, a heading, some text and a call to action.', 'Try the info card'),
      step('add-posts-widget', 'Add a posts widget', 'List your latest posts in a grid.', 'Try the posts widget')
    ]
  },
  {
    id: 'power-extensions',
    title: 'Turn on the extensions',
    description: 'Small additions that make every page better.',
    steps: [
      step('enable-duplicator', 'Enable the duplicator', 'Copy posts, pages and templates with one click.', 'Enable'),
      step('enable-scroll-to-top', 'Enable scroll to top', 'Add a button that brings visitors back to the top.', 'Enable'),
      step('enable-reading-progres-bar', 'Enable the reading progress bar', 'Show visitors how far they have read.', 'Enable')
    ]
  },
  {
    id: 'pro-features',
    title: 'Go further with Pro',
    description: 'More widgets and extensions in the Pro version.',
    pro: true,
    steps: [step('explore-pro', 'Explore the Pro features', 'See what the Pro widgets add.', 'Explore Pro', { pro: true })]
  }
]

/**
 * The chapters answered: with `proInstalled` the Pro chapter is left out,
 * as the product does when its Pro version is there.
 */
function chaptersFor (proInstalled: boolean): ChapterSpec[] {
  return CHAPTERS.filter((c) => c.pro !== true || !proInstalled)
}

function stepIds (chapters: readonly ChapterSpec[]): Map<string, Set<string>> {
  return new Map(chapters.map((c) => [c.id, new Set(c.steps.map((s) => s.id))]))
}

/** Only the booleans of known chapters and steps (a stored value is never trusted blindly). */
function cleanProgress (value: unknown): Progress {
  const out: Progress = {}
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return out
  const known = stepIds(CHAPTERS)
  for (const [chapter, steps] of Object.entries(value as Record<string, unknown>)) {
    const ids = known.get(chapter)
    if (ids === undefined || typeof steps !== 'object' || steps === null || Array.isArray(steps)) continue
    for (const [id, done] of Object.entries(steps as Record<string, unknown>)) {
      if (ids.has(id) && typeof done === 'boolean') (out[chapter] ??= {})[id] = done
    }
  }
  return out
}

export interface LearnOptions {
  /** Whether the Pro version of the plugin is installed (hides the Pro chapter). */
  proInstalled: () => Promise<boolean>
}

export function learnRoutes (api: PackageApi, usage: UsageEvents, opts: LearnOptions): RelativeRouteDecl[] {
  const { store } = api.services
  return [
    route({
      path: '/get-learn-chapters',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'The learning chapters with the caller\'s progress',
        response: Type.Array(Type.Object({ id: Type.String(), title: Type.String(), description: Type.String(), steps: Type.Array(Type.Object({ id: Type.String(), title: Type.String(), description: Type.String(), learn: Type.Object({}), action: Type.Object({ label: Type.String(), url: Type.String(), isExternal: Type.Boolean() }), completed: Type.Boolean(), isPro: Type.Optional(Type.Boolean()) })) })),
        permission: mayViewLearn,
        handler: async (req) => {
          const progress = cleanProgress(await getUserMeta(store, req.user.id, LEARN_PROGRESS_KEY))
          return chaptersFor(await opts.proInstalled()).map((c) => ({
            id: c.id,
            title: c.title,
            description: c.description,
            steps: c.steps.map((s) => ({
              id: s.id,
              title: s.title,
              description: s.description,
              learn: { type: 'dialog', content: { type: 'image', data: { src: `${DOCS_BASE}learn/${s.id}.webp`, alt: s.title } } },
              action: { label: s.action, url: `${DOCS_BASE}learn/${c.id}/${s.id}/`, isExternal: true },
              completed: progress[c.id]?.[s.id] === true,
              ...(s.pro === true ? { isPro: true } : {})
            }))
          }))
        }
      })]
    }),
    route({
      path: '/update-learn-progress',
      endpoints: [endpoint({
        methods: ['POST'],
        args: {
          chapterId: Type.String({ description: 'The chapter of the step.', maxLength: 100 }),
          stepId: Type.String({ description: 'The step to mark.', maxLength: 100 }),
          completed: Type.Boolean({ description: 'Whether the step is done.' })
        },
        summary: 'Mark one learning step done or not done for the caller',
        response: Type.Object({ success: Type.Boolean(), message: Type.String() }),
        permission: mayUpdateLearn,
        handler: async (req) => {
          const { chapterId, stepId, completed } = req.params
          if (stepIds(CHAPTERS).get(chapterId)?.has(stepId) !== true) {
            throw hdrftrErrors.invalid_step({ params: { chapterId, stepId } }, `Unknown chapter "${chapterId}" or step "${stepId}".`)
          }
          const userId = req.user.id
          // Read before the transaction: inside it only `tx` may be used.
          const chapters = chaptersFor(await opts.proInstalled())
          const done = await store.transaction(async (tx) => {
            // One save at a time per user: a read-modify-write of the one meta value.
            await dbOf(tx).execute(sql`select pg_advisory_xact_lock(hashtext(${`hdrftr_learn:${userId}`}))`)
            const progress = cleanProgress(await getUserMeta(tx, userId, LEARN_PROGRESS_KEY))
            ;(progress[chapterId] ??= {})[stepId] = completed
            await setUserMeta(tx, userId, LEARN_PROGRESS_KEY, progress)
            return chapters.every((c) => c.steps.every((s) => progress[c.id]?.[s.id] === true))
          })
          if (done) await usage.once('learn_completed')
          return { success: true, message: 'Progress saved successfully.' }
        }
      })]
    })
  ]
}
