/**
 * The SEO task list and the dashboard's tracking (seo-rollback-assistant-
 * addons.md §1.3):
 *
 *   get_tasks        the tasks, each one's completion read from the site's state now (manage_seo_options)
 *   complete_task    does what a completable task asks (deletes the sample content, enables llms.txt)
 *   action_tracking  stamps a tracking-only option with the package version (manage_seo_options)
 *   workouts         GET the workouts' state, POST stores it (edit_others_posts)
 *
 * Sample content is what a fresh site of the real product starts with: the
 * post `hello-world` and the page `sample-page` (by slug, as this service
 * seeds no content with fixed ids). Completing a deletion task deletes
 * them for good through cms/v2 as the caller, so the core's rules, events
 * and indexables follow. The real product's per-post child tasks of the
 * "improve" parents are not listed; a parent is complete when no published
 * post of its type needs the improvement. Each task costs one bounded read.
 * An unknown or not completable task is a 404 in the error shape.
 */
import { Type } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import { endpoint, route, type RelativeRouteDecl, type RestRequest } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import { adminUrl, mayEditOthersPosts, mayManageSeo } from './access.js'
import { seoErrors } from './errors.js'
import type { HeadOptions } from './head.js'
import { DEFAULT_TEMPLATES } from './templates.js'
import { SEO_VERSION, TRACKED_ACTIONS, updateOption, type SeoOptions } from './state.js'

/** The post types that get per-type tasks. */
const TASK_TYPES = ['post', 'page'] as const
const SAMPLE = { 'delete-hello-world': { type: 'post', slug: 'hello-world' }, 'delete-sample-page': { type: 'page', slug: 'sample-page' } } as const
const RECENT_DAYS = 90

interface Task {
  id: string
  duration: number
  priority: 'high' | 'medium' | 'low'
  badge: string | null
  isCompleted: boolean
  callToAction: { label: string, type: 'link' | 'delete' | 'default', href: string | null } | null
  title: string
  about: string
  isParentTask?: true
}

export function taskRoutes (api: PackageApi, options: SeoOptions, head: HeadOptions): RelativeRouteDecl[] {
  const store = (): PackageApi['services']['store'] => api.services.store
  const sampleOf = async (task: keyof typeof SAMPLE): Promise<number | undefined> => {
    const { type, slug } = SAMPLE[task]
    const { posts } = await api.content.posts({ type, slug: [slug], status: ['publish', 'draft', 'pending', 'private', 'future'], perPage: 1 })
    return posts[0]?.id
  }
  /** Published posts of `type` whose indexable matches `where`: none means the task is done. */
  const noneNeed = async (type: string, where: ReturnType<typeof sql>): Promise<boolean> => {
    const rows = await store().execute<{ one: number }>(sql`select 1 as one from seo_indexables where object_type = 'post' and object_sub_type = ${type}
      and post_status = 'publish' and (${where}) limit 1`)
    return rows.length === 0
  }

  const tasksOf = async (req: RestRequest): Promise<Record<string, Task>> => {
    const link = (label: string, page: string): Task['callToAction'] => ({ label, type: 'link', href: adminUrl(api, page) })
    const [finished, firstTime, llms, templates, recent, hello, sample] = await Promise.all([
      options.configuration_finished_steps.get(), options.first_time_install.get(), options.enable_llms_txt.get(), head.templates.get(),
      api.content.posts({ type: 'post', status: ['publish'], after: new Date(Date.now() - RECENT_DAYS * 86_400_000), perPage: 1 }),
      sampleOf('delete-hello-world'), sampleOf('delete-sample-page')
    ])
    const list: Task[] = [
      { id: 'complete-ftc', duration: 15, priority: 'high', badge: null, isCompleted: !firstTime || finished.length >= 3, callToAction: link('Start the configuration', 'admin.php?page=seo_dashboard#/first-time-configuration'), title: 'Complete the first-time configuration', about: 'Tell search engines whom the site represents and where it is on social networks.' },
      { id: 'create-new-content', duration: 90, priority: 'medium', badge: null, isCompleted: recent.posts.length > 0, callToAction: link('Write a post', 'post-new.php'), title: 'Create new content', about: `Publish a post: the site has none from the last ${RECENT_DAYS} days.` },
      { id: 'delete-hello-world', duration: 1, priority: 'medium', badge: null, isCompleted: hello === undefined, callToAction: hello === undefined ? null : { label: 'Delete the post', type: 'delete', href: null }, title: 'Delete the sample post', about: 'The sample post a fresh site starts with says nothing about the site.' },
      { id: 'delete-sample-page', duration: 1, priority: 'medium', badge: null, isCompleted: sample === undefined, callToAction: sample === undefined ? null : { label: 'Delete the page', type: 'delete', href: null }, title: 'Delete the sample page', about: 'The sample page a fresh site starts with says nothing about the site.' },
      { id: 'enable-llms-txt', duration: 1, priority: 'medium', badge: null, isCompleted: llms, callToAction: llms ? null : { label: 'Enable llms.txt', type: 'default', href: null }, title: 'Enable llms.txt', about: 'Point AI tools at the content that matters.' }
    ]
    for (const type of TASK_TYPES) {
      const custom = ['title', 'metadesc'].some((kind) => {
        const key = `${kind}-${type}`
        return templates[key] !== undefined && templates[key] !== DEFAULT_TEMPLATES[key]
      })
      const [seo, readability, descriptions] = await Promise.all([
        noneNeed(type, sql`primary_focus_keyword_score between 1 and 70`),
        noneNeed(type, sql`readability_score between 1 and 70`),
        noneNeed(type, sql`description is null or description = ''`)
      ])
      list.push(
        { id: `set-search-appearance-templates-${type}`, duration: 10, priority: 'high', badge: null, isCompleted: custom, callToAction: link('Set the templates', `admin.php?page=seo_page_settings#/post-type/${type}`), title: `Set the search appearance templates of ${type}s`, about: 'Titles and descriptions built from templates fit every post of the type.' },
        { id: `improve-content-seo-${type}`, duration: 10, priority: 'medium', badge: null, isCompleted: seo, callToAction: link('See the posts', `edit.php?post_type=${type}&seo_filter=bad`), title: `Improve the SEO of your ${type}s`, about: 'Some published posts score below good.', isParentTask: true },
        { id: `improve-content-readability-${type}`, duration: 10, priority: 'medium', badge: null, isCompleted: readability, callToAction: link('See the posts', `edit.php?post_type=${type}&readability_filter=bad`), title: `Improve the readability of your ${type}s`, about: 'Some published posts read below good.', isParentTask: true },
        { id: `improve-default-meta-descriptions-${type}`, duration: 10, priority: 'medium', badge: null, isCompleted: descriptions, callToAction: link('See the posts', `edit.php?post_type=${type}`), title: `Write meta descriptions for your ${type}s`, about: 'Some published posts have no meta description of their own.', isParentTask: true }
      )
    }
    return Object.fromEntries(list.map((t) => [t.id, t]))
  }

  /** Stamps a tracking option with the version, the first time only. */
  const stamp = async (action: string, again = false): Promise<void> => {
    await updateOption(api, options.action_tracking, (current) => again || !Object.hasOwn(current, action) ? { ...current, [action]: SEO_VERSION } : current)
  }

  const getTasks = route({
    path: '/get_tasks',
    endpoints: [endpoint({
      methods: ['GET'],
      args: {
        options: Type.Optional(Type.Object({
          filter: Type.Optional(Type.String({ maxLength: 100 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 }))
        }, { description: 'Accepted, not used (as the real product).' }))
      },
      summary: 'The SEO task list',
      response: Type.Object({ success: Type.Boolean(), tasks: Type.Record(Type.String(), Type.Object({ id: Type.String(), duration: Type.Integer(), priority: Type.String(), isCompleted: Type.Boolean(), title: Type.String() }), { description: 'Task id -> the task.' }) }),
      permission: mayManageSeo,
      handler: async (req) => {
        await stamp('task_list_first_opened_on')
        return { success: true, tasks: await tasksOf(req) }
      }
    })]
  })

  const completeTask = route({
    path: '/complete_task',
    endpoints: [endpoint({
      methods: ['POST'],
      args: { options: Type.Object({ task: Type.String({ maxLength: 100 }) }, { description: 'The task to complete.' }) },
      summary: 'Complete a task of the SEO task list',
      response: Type.Object({ success: Type.Boolean() }),
      permission: mayManageSeo.probing({ body: { options: { task: 'probe' } } }),
      handler: async (req) => {
        const task = req.params.options.task
        await stamp('task_first_actioned_on')
        if (task === 'enable-llms-txt') {
          await options.enable_llms_txt.set(true)
          return { success: true }
        }
        if (task !== 'delete-hello-world' && task !== 'delete-sample-page') throw seoErrors.seo_task_not_found()
        const id = await sampleOf(task)
        // Already gone: the task is complete.
        if (id === undefined) return { success: true }
        const res = await req.dispatch({ method: 'DELETE', path: `/cms/v2/${SAMPLE[task].type === 'page' ? 'pages' : 'posts'}/${id}`, query: { force: true } })
        if (res.status !== 200) throw seoErrors.seo_task_failed({ task, reason: res.body }, task === 'delete-hello-world' ? 'Failed to delete the sample post.' : 'Failed to delete the sample page.')
        return { success: true }
      }
    })]
  })

  const actionTracking = route({
    path: '/action_tracking',
    endpoints: [endpoint({
      methods: ['POST'],
      args: { action: Type.String({ description: 'The tracking-only option to stamp.', maxLength: 100 }) },
      summary: 'Record that a dashboard action was taken',
      response: Type.Object({ success: Type.Boolean(), action: Type.String() }),
      permission: mayManageSeo.probing({ body: { action: 'task_list_first_opened_on' } }),
      handler: async (req) => {
        const action = req.params.action
        if (!(TRACKED_ACTIONS as readonly string[]).includes(action)) throw seoErrors.seo_invalid_tracked_action()
        await stamp(action, true)
        return { success: true, action }
      }
    })]
  })

  const workouts = route({
    path: '/workouts',
    endpoints: [endpoint({
      methods: ['GET', 'POST'],
      args: {},
      summary: 'The SEO workouts\' state (POST stores the body\'s)',
      response: Type.Object({ json: Type.Unknown({ description: 'The stored workouts data.' }) }),
      permission: mayEditOthersPosts.because('§1.3 workouts: edit_others_posts').probing({ body: { configuration: { finishedSteps: [] } } }),
      handler: async (req) => {
        // The free product stores nothing on POST; here the body is kept, as its premium edition does.
        if (req.method === 'POST') {
          const body = req.sentBody
          if (typeof body !== 'object' || body === null || Array.isArray(body)) throw seoErrors.seo_invalid_workouts()
          await options.workouts_data.set(body)
        }
        return { json: await options.workouts_data.get() }
      }
    })]
  })

  return [getTasks, completeTask, actionTracking, workouts]
}
