import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createServices, findUserByLogin, importMedia, listUsers, outboundClientFromEnv } from '@cms/core'
import type { UserRecord } from '@cms/core'
import { storeSettingsFromEnv } from '@cms/store'
import type { Store } from '@cms/store'
import { argvForParse, parseOrUsage, UsageError, withStore } from '../command.js'
import type { CommandGroup } from '../command.js'

const usage = `Usage:
  cms media import <path|url>... [--post <id>] [--user <login>] [--json]

import  stores files (local paths, or http(s) URLs fetched through the
        outbound client: private addresses need CMS_OUTBOUND_ALLOW) as
        attachments, with their image sizes, as an upload would. One
        progress line per file, then its attachment id and URL.

Flags:
  --post <id>     attach the files to this post
  --user <login>  the owner (needs upload_files; default: the first administrator)
  --json          print one JSON object per file instead of text
  -h, --help      show this help

Files go under $CMS_CONTENT_DIR/uploads (default $CMS_DATA_DIR/content/uploads);
the limit is CMS_UPLOAD_MAX_BYTES (default 64 MiB). With the embedded
database, a running service is reached through its socket: no need to stop it.`

/** The content directory and upload limit, as the gateway reads them. */
function mediaSettings (env: NodeJS.ProcessEnv): { contentDir: string; uploadMaxBytes: number } {
  const { dataDir } = storeSettingsFromEnv(env)
  const contentDir = env.CMS_CONTENT_DIR !== undefined && env.CMS_CONTENT_DIR !== ''
    ? resolve(env.INIT_CWD ?? process.cwd(), env.CMS_CONTENT_DIR)
    : resolve(dataDir, 'content')
  const max = env.CMS_UPLOAD_MAX_BYTES === undefined || env.CMS_UPLOAD_MAX_BYTES === '' ? 64 * 1024 * 1024 : Number(env.CMS_UPLOAD_MAX_BYTES)
  if (!Number.isSafeInteger(max) || max < 1024) throw new UsageError('CMS_UPLOAD_MAX_BYTES must be an integer of at least 1024', 'media')
  return { contentDir, uploadMaxBytes: max }
}

async function owner (store: Store, login: string | undefined): Promise<UserRecord> {
  if (login !== undefined) {
    const user = await findUserByLogin(store, login)
    if (user === undefined) throw new UsageError(`no user "${login}"`, 'media')
    return user
  }
  const { users } = await listUsers(store, { roles: ['administrator'], limit: 1, orderby: 'id', order: 'asc' })
  if (users[0] === undefined) throw new UsageError('no administrator: give --user <login>', 'media')
  return users[0]
}

function mb (bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

export const mediaCommand: CommandGroup = {
  name: 'media',
  summary: 'import files and URLs into the media library',
  writes: ['import'],
  usage,
  async run (args, ctx) {
    const { values, positionals } = parseOrUsage('media', () =>
      parseArgs({
        args: argvForParse(args),
        options: {
          help: { type: 'boolean', short: 'h' },
          json: { type: 'boolean' },
          post: { type: 'string' },
          user: { type: 'string' },
        },
        allowPositionals: true,
      })
    )
    const [action, ...sources] = positionals
    if (values.help || action === 'help') {
      ctx.out(usage)
      return 0
    }
    if (action !== 'import') throw new UsageError(action === undefined ? 'missing action' : `unknown action "${action}"`, 'media')
    if (sources.length === 0) throw new UsageError('missing <path|url>', 'media')
    const post = values.post === undefined ? 0 : Number(values.post)
    if (!Number.isSafeInteger(post) || post < 0) throw new UsageError('--post must be a post id', 'media')
    const settings = mediaSettings(ctx.env)
    const baseUrl = (ctx.env.CMS_BASE_URL ?? '').replace(/\/+$/, '') || 'http://127.0.0.1:8080'
    return await withStore(ctx, async (store) => {
      const user = await owner(store, values.user)
      const services = createServices({ store, settings: { profile: ctx.env.CMS_DEPLOYMENT ?? 'A', ...settings } })
      const outbound = outboundClientFromEnv(ctx.env)
      let failed = 0
      for (const [i, source] of sources.entries()) {
        const tag = `[${i + 1}/${sources.length}]`
        let last = 0
        try {
          const done = await importMedia(services, source, {
            user,
            post,
            baseUrl,
            outbound,
            // A progress line every 8 MB read (and one at the end).
            progress: (bytes) => {
              if (values.json !== true && bytes - last >= 8 * 1024 * 1024) {
                last = bytes
                ctx.out(`${tag} ${source}: ${mb(bytes)} read`)
              }
            },
          })
          ctx.out(values.json === true
            ? JSON.stringify({ source, id: done.id, source_url: done.sourceUrl, mime_type: done.mime, bytes: done.bytes })
            : `${tag} ${source}: ${mb(done.bytes)}, attachment ${done.id} (${done.mime}) ${done.sourceUrl}`)
        } catch (err) {
          failed++
          const message = (err as { message?: string }).message ?? String(err)
          ctx.out(values.json === true ? JSON.stringify({ source, error: message }) : `${tag} ${source}: failed: ${message}`)
        }
      }
      return failed === 0 ? 0 : 1
    })
  },
}
