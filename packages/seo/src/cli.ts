/**
 * `cms seo analyze [--all | --post ID]`: rescans existing content with the
 * server-side analysis (analysis.ts), in the same worker pool and queue the
 * service uses, with a progress bar on a terminal. `--all` re-analyses
 * every post and page (even those whose text did not change); `--post ID`
 * one; without either, whatever is due (new, changed or failed), and the
 * posts another process (the service) is analysing right then are named as
 * left to it, not waited for: no post was asked for. With
 * `--all` or `--post` the command ends once those posts are analysed: one
 * the running service is analysing right then (its lease) is waited for,
 * and analysed again after it (the text may have changed since that
 * analysis read it), here or by the service, whichever takes it first.
 */
import { parseArgs } from 'node:util'
import { CommandUsageError, type PackageCommand } from '@cms/core'
import { ANALYSED_TYPES, createAnalyser } from './analysis.js'

const usage = `Usage:
  cms seo analyze            analyse the posts and pages that are due (new, changed, failed before)
  cms seo analyze --all      analyse every post and page again
  cms seo analyze --post ID  analyse one post or page

Scores (SEO with a focus keyphrase, readability, inclusive language) and the
reading time are stored as the _seo_* post meta, as the service does after
each write. With --all or --post it ends once those posts are analysed (a
post the running service is analysing is waited for, then analysed again);
without them, posts the service is analysing right then are named as left
to it ("left to the service N (posts ...)"), not waited for.
Threads: the seo_analysis_threads option (cms option set).

Flags:
  -h, --help  show this help`

/** How many ids of posts left to the service the plain command names. */
const HELD_SHOWN = 10

/** Statuses whose posts are analysed by --all. */
const STATUSES = ['publish', 'future', 'draft', 'pending', 'private']

function bar (done: number, total: number): string {
  const width = 30
  const filled = total === 0 ? width : Math.min(width, Math.round((done / total) * width))
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`
}

export const seoCommands: readonly PackageCommand[] = [{
  name: 'seo',
  summary: 'rescan content with the SEO analysis (scores and reading time)',
  writes: ['analyze'],
  usage,
  async run (args, ctx) {
    let parsed
    try {
      parsed = parseArgs({ args, options: { all: { type: 'boolean' }, post: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true })
    } catch (err) {
      throw new CommandUsageError((err as Error).message.split('\n')[0]!)
    }
    const { values, positionals } = parsed
    if (values.help === true || positionals[0] === 'help') {
      ctx.out(usage)
      return 0
    }
    if (positionals[0] !== 'analyze' || positionals.length > 1) throw new CommandUsageError(positionals[0] === undefined ? 'missing subcommand (analyze)' : `unknown subcommand "${positionals.join(' ')}" (expected analyze)`)
    if (values.all === true && values.post !== undefined) throw new CommandUsageError('give --all or --post, not both')
    const post = values.post === undefined ? undefined : /^\d{1,15}$/.test(values.post) ? Number(values.post) : NaN
    if (Number.isNaN(post)) throw new CommandUsageError('--post takes a post id')
    return await ctx.withServices(async (services) => {
      const analyser = createAnalyser({
        store: () => services.store,
        content: services.content,
        threads: async () => Number(await services.options.read('seo_analysis_threads'))
      })
      try {
        let total = 0
        /** The posts asked for (--post, --all), seen analysed before the command ends. */
        const asked: number[] = []
        if (post !== undefined) {
          const found = await services.content.post(post)
          if (found === undefined || !ANALYSED_TYPES.includes(found.post.type)) {
            ctx.out(`no post or page ${post}`)
            return 1
          }
          await analyser.enqueue([post], { force: true })
          asked.push(post)
          total = 1
        } else if (values.all === true) {
          // Page by page in id order, so memory does not grow with the number of posts.
          for (let page = 1; ; page++) {
            const { posts } = await services.content.posts({ type: ANALYSED_TYPES, status: STATUSES, orderby: 'id', order: 'asc', perPage: 100, page })
            await analyser.enqueue(posts.map((p) => p.id), { force: true })
            for (const p of posts) asked.push(p.id)
            total += posts.length
            if (posts.length < 100) break
          }
        } else {
          total = await analyser.dueCount()
        }
        ctx.progress(bar(0, total))
        const onProgress = (done: number): void => { ctx.progress(bar(Math.min(done, total), total)) }
        if (post === undefined && values.all !== true) {
          const counts = await analyser.runDue(onProgress)
          // Not waited for (no post was asked for): the process analysing them finishes them. Said, so "analysed"
          // is not read as "nothing left".
          const held = await analyser.heldElsewhere(HELD_SHOWN)
          const ids = held.ids.join(', ') + (held.total > held.ids.length ? ', …' : '')
          const left = held.total > 0 ? `, left to the service ${held.total} (${held.total === 1 ? 'post' : 'posts'} ${ids})` : ''
          ctx.out(`analysed ${counts.analysed}, unchanged ${counts.skipped}, failed ${counts.failed}${left}`)
          return counts.failed > 0 ? 1 : 0
        }
        const counts = await analyser.settle(asked, {
          onProgress,
          onWait: (open) => { ctx.progress(`waiting for ${open} ${open === 1 ? 'post' : 'posts'} the service is analysing`) }
        })
        const waiting = counts.waiting > 0 ? `, still under way ${counts.waiting}` : ''
        ctx.out(`analysed ${counts.analysed}, unchanged ${counts.skipped}, failed ${counts.failed}${waiting}`)
        return counts.failed > 0 || counts.waiting > 0 ? 1 : 0
      } finally {
        await analyser.close()
      }
    })
  }
}]
