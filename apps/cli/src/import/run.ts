/**
 * One import: records from a reader, in batches, each batch in one
 * transaction (each record in a savepoint of it, so one bad record fails
 * alone), its attachment files fetched before the transaction opens; then
 * the references that pointed forward are resolved. A second run finds each
 * record in the id map and writes only what changed.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Caller, findUserByLogin, isRole, listUsers, type OutboundClient, type Services, type UserRecord } from '@cms/core'
import { migrate, type Store } from '@cms/store'
import { checksumOf, type SourceComment, type SourceCommentRecord, type SourceRecord } from './model.js'
import { IdMap, importMigrations, runOn, type Mapped } from './map.js'
import { fetchAll } from './media.js'
import { linkedKeys } from './links.js'
import { switchableStore } from './tx-store.js'
import { refusal, resolvePending, writeComment, writePost, writeTerm, writeUser, type Outcome, type WriterContext } from './writer.js'

export interface ImportRun {
  store: Store
  env: NodeJS.ProcessEnv
  /** Records to import (the first one names the site). */
  records: AsyncIterable<SourceRecord>
  dryRun: boolean
  /** Interrupts the run: the batch under way is rolled back (Ctrl-C). */
  signal?: AbortSignal
  batchSize: number
  /** The administrator the import runs as (login; default the first administrator). */
  as?: string
  /** Every source author becomes this existing user (login). */
  author?: string
  /** Source logins mapped to existing users' logins (`--authors`). */
  authors?: ReadonlyMap<string, string>
  outbound: OutboundClient
  concurrency: number
  retries: number
  /** A line of output (dry-run changes, the summary). */
  out: (line: string) => void
  /** Told after each batch: records read so far. */
  tick?: (records: number, counts: Counts) => void
}

export interface Counts { created: number, updated: number, unchanged: number, skipped: number, failed: number }

export interface Summary {
  site: string
  /** Per kind (user, category, post_tag, post, page, attachment, comment). */
  kinds: Record<string, Counts>
  total: Counts
  /** Reasons for skipping, with how many. */
  skipped: Map<string, number>
  /** One line per failed record (at most 200 kept). */
  failed: string[]
  /** Interrupted (the batch under way rolled back): a run again resumes. */
  interrupted: boolean
}

/** Thrown inside a batch's transaction when the run is interrupted: the batch rolls back. */
class Interrupted extends Error {}

const zero = (): Counts => ({ created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 })
const FAILED_KEPT = 200

type Item = Exclude<SourceRecord, { kind: 'site' }>

/** A comment read on its own, as the export file nests it (one checksum whichever source). */
function commentPart (rec: SourceCommentRecord): SourceComment {
  const { kind: _kind, post: _post, ...comment } = rec
  return comment
}

async function administrator (store: Store, login: string | undefined): Promise<UserRecord> {
  if (login !== undefined) {
    const user = await findUserByLogin(store, login)
    if (user === undefined) throw new Error(`no user "${login}"`)
    if (!user.roles.includes('administrator')) throw new Error(`${login} is not an administrator`)
    return user
  }
  const { users } = await listUsers(store, { roles: ['administrator'], limit: 1, orderby: 'id', order: 'asc' })
  if (users[0] === undefined) throw new Error('no administrator to import as: create one first (cms user create) or give --as <login>')
  return users[0]
}

function labelOf (rec: Item): string {
  if (rec.kind === 'post') return `${rec.type} ${rec.key} "${rec.title.slice(0, 60)}"`
  if (rec.kind === 'user') return `user ${rec.login}`
  if (rec.kind === 'comment') return `comment ${rec.key} on ${rec.post}`
  return `${rec.kind === 'category' ? 'category' : 'tag'} ${rec.slug}`
}

export async function runImport (run: ImportRun): Promise<Summary> {
  await migrate(run.store, [importMigrations])
  const summary: Summary = { site: '', kinds: {}, total: zero(), skipped: new Map(), failed: [], interrupted: false }
  const count = (kind: string, what: Outcome, label: string): void => {
    const k = (summary.kinds[kind] ??= zero())
    k[what.result]++
    summary.total[what.result]++
    if (what.result === 'skipped') summary.skipped.set(`${kind}: ${what.reason}`, (summary.skipped.get(`${kind}: ${what.reason}`) ?? 0) + 1)
    if (what.result === 'failed' && summary.failed.length < FAILED_KEPT) summary.failed.push(`${label}: ${what.reason}`)
  }
  const switchable = switchableStore(run.store)
  let writer: WriterContext | undefined
  let close = async (): Promise<void> => {}
  let map: IdMap | undefined
  let work: string | undefined
  let read = 0
  const check = (): void => { if (run.signal?.aborted === true) throw new Interrupted('interrupted') }

  let fresh = false
  const open = async (site: string): Promise<void> => {
    summary.site = site
    map = new IdMap(site, runOn(switchable.store))
    if (run.dryRun) {
      // Nothing imported from this site yet: every record is new, no lookups.
      fresh = await map.isEmpty()
      return
    }
    const owner = await administrator(run.store, run.as)
    const author = run.author === undefined ? undefined : await findUserByLogin(run.store, run.author)
    if (run.author !== undefined && author === undefined) throw new Error(`no user "${run.author}" (--author)`)
    const authors = new Map<string, UserRecord>()
    for (const [from, login] of run.authors ?? []) {
      const user = await findUserByLogin(run.store, login)
      if (user === undefined) throw new Error(`no user "${login}" (--authors, for ${from})`)
      authors.set(from, user)
    }
    // The service's own app on the switchable store; loaded only for an import.
    const { buildApp, loadSettings } = await import('@cms/gateway')
    const roles = owner.roles.filter(isRole)
    const known: { roles?: Services['roles'] } = {}
    // Errors of the routes are logged with CMS_IMPORT_DEBUG=1 (a failed record otherwise says only its code).
    // No rate limits: every request is this process's own, thousands of them from one caller.
    const app = await buildApp(loadSettings({ ...run.env, CMS_RATE_LIMITS: 'off' }), {
      store: switchable.store,
      jobs: false,
      logger: run.env.CMS_IMPORT_DEBUG === '1' ? { level: 'error' } : false,
      authenticate: async () => new Caller(owner.id, owner.login, roles, undefined, known.roles)
    })
    known.roles = app.platform.services.roles
    close = async () => { await app.close() }
    work = await mkdtemp(join(tmpdir(), 'cms-import-'))
    const services = app.platform.services
    const baseUrl = (run.env.CMS_BASE_URL ?? '').replace(/\/+$/, '') || 'http://127.0.0.1:8080'
    writer = { app, services, store: switchable.store, map, site, owner, ...(author === undefined ? {} : { author }), authors, files: new Map(), baseUrl }
  }

  /** Writes one batch in one transaction; each record (and each comment) in a savepoint. */
  const batch = async (items: Item[]): Promise<void> => {
    check()
    const m = map!
    try {
      await batchOf(m, items)
    } finally {
      m.forget()
    }
  }

  const batchOf = async (m: IdMap, items: Item[]): Promise<void> => {
    // What the records are and refer to, read in one query a kind: the writer then asks nothing of its own.
    const mapped = new Map<string, Map<string, Mapped>>()
    for (const [kind, keys] of keysOf(items)) mapped.set(kind, fresh ? new Map() : await m.lookup(kind, [...keys]))
    const mappedComments = mapped.get('comment') ?? new Map<string, Mapped>()
    const kindOf = (rec: Item): string => rec.kind === 'post' ? rec.type : rec.kind
    if (run.dryRun) {
      for (const rec of items) {
        const had = mapped.get(rec.kind)?.get(rec.key)
        const refused = rec.kind === 'post' ? refusal(rec) : undefined
        if (refused !== undefined) {
          count(kindOf(rec), { result: 'skipped', reason: refused }, labelOf(rec))
          continue
        }
        const sum = rec.kind === 'post' ? checksumOf({ ...rec, comments: undefined }) : rec.kind === 'comment' ? checksumOf(commentPart(rec)) : checksumOf(rec)
        const result = had === undefined ? 'created' : had.checksum === sum ? 'unchanged' : 'updated'
        count(kindOf(rec), { result }, labelOf(rec))
        if (result !== 'unchanged') run.out(`would ${result === 'created' ? 'create' : 'update'} ${labelOf(rec)}`)
        if (rec.kind !== 'post') continue
        for (const c of rec.comments) {
          const hadC = mappedComments.get(c.key)
          const r = hadC === undefined ? 'created' : hadC.checksum === checksumOf(c) ? 'unchanged' : 'updated'
          count('comment', { result: r }, `comment ${c.key}`)
          if (r !== 'unchanged') run.out(`would ${r === 'created' ? 'create' : 'update'} comment ${c.key} on ${rec.type} ${rec.key}`)
        }
      }
      return
    }
    const w = writer!
    // Files first, a few at a time, outside the transaction: only those of attachments new here.
    const wanted = new Map<string, string>()
    for (const rec of items) {
      if (rec.kind === 'post' && rec.type === 'attachment' && rec.fileUrl !== undefined && mapped.get('post')?.get(rec.key) === undefined) wanted.set(rec.key, rec.fileUrl)
    }
    w.files = await fetchAll(run.outbound, wanted, join(work!, String(read)), { maxBytes: w.services.media.maxBytes, concurrency: run.concurrency, retries: run.retries })
    const outcomes: Array<[string, Outcome, string]> = []
    await run.store.transaction(async (tx) => {
      await switchable.within(tx, async () => {
        // One record in a savepoint: a failure takes back its writes and the id map rows it put.
        const attempt = async (write: () => Promise<Outcome>): Promise<Outcome> => {
          const mark = m.mark()
          return await tx.transaction(async (sp) => await switchable.within(sp, write))
            .catch((err: Error): Outcome => { m.undo(mark); return { result: 'failed', reason: err.message } })
        }
        for (const rec of items) {
          const had = mapped.get(rec.kind)?.get(rec.key)
          const outcome = await attempt(async () => {
            if (rec.kind === 'user') return await writeUser(w, rec, had)
            if (rec.kind === 'post') return await writePost(w, rec, had)
            if (rec.kind === 'comment') return await writeComment(w, rec.post, commentPart(rec), had)
            return await writeTerm(w, rec, had)
          })
          outcomes.push([kindOf(rec), outcome, labelOf(rec)])
          if (rec.kind === 'post' && outcome.result !== 'failed' && outcome.result !== 'skipped') {
            for (const c of rec.comments) {
              const done = await attempt(async () => await writeComment(w, rec.key, c, mappedComments.get(c.key)))
              outcomes.push(['comment', done, `comment ${c.key} on ${rec.type} ${rec.key}`])
            }
          }
          // After each record: an interruption rolls back what this batch wrote.
          check()
        }
        // The batch's id map rows, in one statement, committed with what they describe.
        await m.flush()
      })
    })
    // Counted once the batch committed.
    for (const [kind, outcome, label] of outcomes) count(kind, outcome, label)
  }

  try {
    let items: Item[] = []
    for await (const rec of run.records) {
      if (rec.kind === 'site') {
        await open(rec.url)
        continue
      }
      if (map === undefined) await open('')
      items.push(rec)
      read++
      // Attachments fetch their files: smaller batches.
      const limit = rec.kind === 'post' && rec.type === 'attachment' ? Math.max(1, Math.floor(run.batchSize / 5)) : run.batchSize
      if (items.length >= limit) {
        await batch(items)
        items = []
        run.tick?.(read, summary.total)
      }
    }
    if (items.length > 0) {
      await batch(items)
      run.tick?.(read, summary.total)
    }
    if (!run.dryRun && map !== undefined) await resolveAll(map, writer!, switchable, run.store, run.batchSize, summary, check)
  } catch (err) {
    if (!(err instanceof Interrupted)) throw err
    summary.interrupted = true
  } finally {
    await close()
    if (work !== undefined) await rm(work, { recursive: true, force: true })
  }
  return summary
}

/** The keys a batch's records are and refer to, by kind. */
function keysOf (items: Item[]): Map<string, Set<string>> {
  const keys = new Map<string, Set<string>>()
  const add = (kind: string, key: string | undefined): void => {
    if (key === undefined || key === '' || key === '0') return
    let set = keys.get(kind)
    if (set === undefined) keys.set(kind, set = new Set())
    set.add(key)
  }
  for (const rec of items) {
    add(rec.kind, rec.key)
    if (rec.kind === 'category' || rec.kind === 'post_tag') add(rec.kind, rec.parent)
    if (rec.kind === 'comment') {
      add('post', rec.post)
      add('comment', rec.parent)
    }
    if (rec.kind !== 'post') continue
    add('user', rec.author)
    add('post', rec.parent)
    if (rec.meta._thumbnail_id !== undefined) add('post', String(rec.meta._thumbnail_id))
    for (const c of rec.categories) add('category', c)
    for (const tag of rec.tags) add('post_tag', tag)
    for (const key of linkedKeys(rec.content)) add('post', key)
    for (const c of rec.comments) {
      add('comment', c.key)
      add('comment', c.parent)
    }
  }
  return keys
}

/** The references that pointed forward, now that every record is in the map. */
async function resolveAll (map: IdMap, w: WriterContext, switchable: ReturnType<typeof switchableStore>, store: Store, size: number, summary: Summary, check: () => void): Promise<void> {
  let after = ''
  for (;;) {
    check()
    const rows = await map.pendingAfter(after, size)
    if (rows.length === 0) return
    after = rows[rows.length - 1]!.key
    await store.transaction(async (tx) => {
      await switchable.within(tx, async () => {
        map.forget()
        for (const row of rows) {
          await tx.transaction(async (sp) => { await switchable.within(sp, async () => { await resolvePending(w, row) }) })
            .catch((err: Error) => {
              if (summary.failed.length < FAILED_KEPT) summary.failed.push(`${row.pending?.type ?? 'post'} ${row.key}: links: ${err.message}`)
              summary.total.failed++
            })
        }
      })
    })
  }
}

/** The summary as printed. */
export function summaryText (s: Summary, dryRun: boolean): string {
  const line = (c: Counts): string => `created ${c.created}, updated ${c.updated}, unchanged ${c.unchanged}, skipped ${c.skipped}, failed ${c.failed}`
  const lines = [`${dryRun ? 'Dry run (nothing written)' : 'Imported'} from ${s.site || '(unnamed site)'}: ${line(s.total)}`]
  for (const [kind, c] of Object.entries(s.kinds)) lines.push(`  ${kind.padEnd(11)} ${line(c)}`)
  if (s.skipped.size > 0) lines.push('Skipped:', ...[...s.skipped].map(([reason, n]) => `  ${reason} (${n})`))
  if (s.failed.length > 0) lines.push('Failed:', ...s.failed.map((f) => `  ${f}`))
  if (s.interrupted) lines.push('Interrupted: the batch under way was rolled back; run the same command again to resume.')
  return lines.join('\n')
}
