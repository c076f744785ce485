/**
 * `cms import wxr FILE` and `cms import rest URL`: a site moved in from a
 * core-CMS export file or a live site's REST API (src/import/).
 */
import { parseArgs } from 'node:util'
import { createOutboundClient } from '@cms/core'
import cliProgress from 'cli-progress'
import { parseOrUsage, UsageError, withStore, type CommandGroup } from '../command.js'
import { readWxr } from '../import/wxr.js'
import { readRest } from '../import/rest.js'
import { runImport, summaryText } from '../import/run.js'

const usage = `Usage:
  cms import wxr <file> [flags]     from a core-CMS export file (WXR)
  cms import rest <url> [flags]     from a live site's REST API (its root, e.g. https://old.example/wp-json)

Authors become users (no passwords; one of the same login or email here is
used instead), then categories and tags, posts, pages and attachments
(their files fetched into the media library) with their comments and meta.
Run it again to catch up: what the id map knows and did not change is left
alone, what changed is updated, what is new is added.

Flags:
  --dry-run            print what would change, write nothing
  --as <login>         the administrator the import runs as (default: the first one)
  --author <login>     give every imported post to this existing user (no users created)
  --authors <file>     map source authors to existing users: lines "source-login=login"
                       (# comments); authors not named become users as usual
  --user <login>       (rest) the source site's user, with --password: drafts and private content
  --password <pw>      (rest) that user's application password (or CMS_IMPORT_PASSWORD)
  --allow-private      fetch from private addresses too (a source inside your own network)
  --concurrency <n>    files fetched at once (default 4)
  --retries <n>        tries again per failed file (default 2)
  --batch <n>          records per transaction (default 50)
  -h, --help           show this help

Ctrl-C (or SIGTERM) interrupts: the batch under way is rolled back, the
summary printed; run the same command again to resume after the last
whole batch.

Exit code: 0 when nothing failed, 1 when something did (listed in the
summary), 2 for a bad command line, 130 when interrupted.
Private addresses are also reachable when CMS_OUTBOUND_ALLOW names them.`

/** Private, loopback and link-local ranges (`--allow-private`); cloud metadata addresses stay refused unless named one by one. */
const PRIVATE = '10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,127.0.0.0/8,169.254.0.0/16,100.64.0.0/10,::1/128,fc00::/7,fe80::/10'

/** An `--authors` file: `source-login=login` a line; blank lines and `#` comments left out. */
async function authorsFile (file: string): Promise<Map<string, string>> {
  const { readFile } = await import('node:fs/promises')
  const text = await readFile(file, 'utf8').catch(() => { throw new UsageError(`no file ${file} (--authors)`, 'import') })
  const map = new Map<string, string>()
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.replace(/#.*$/, '').trim()
    if (line === '') continue
    const m = /^([^=\s]+)\s*=\s*(\S+)$/.exec(line)
    if (m === null) throw new UsageError(`${file}:${i + 1}: expected source-login=login (--authors)`, 'import')
    map.set(m[1]!, m[2]!)
  }
  return map
}

function count (value: string | undefined, flag: string, fallback: number, min = 1): number {
  if (value === undefined) return fallback
  if (!/^\d{1,6}$/.test(value) || Number(value) < min) throw new UsageError(`${flag} takes a whole number of at least ${min}`, 'import')
  return Number(value)
}

export const importCommand: CommandGroup = {
  name: 'import',
  summary: 'move a site in from a core-CMS export file or REST API (cms import wxr|rest)',
  usage,
  async run (args, ctx) {
    const { values, positionals } = parseOrUsage('import', () => parseArgs({
      args,
      allowPositionals: true,
      options: {
        'dry-run': { type: 'boolean' },
        as: { type: 'string' },
        author: { type: 'string' },
        authors: { type: 'string' },
        user: { type: 'string' },
        password: { type: 'string' },
        'allow-private': { type: 'boolean' },
        concurrency: { type: 'string' },
        retries: { type: 'string' },
        batch: { type: 'string' },
        help: { type: 'boolean', short: 'h' }
      }
    }))
    if (values.help === true) {
      ctx.out(usage)
      return 0
    }
    const [from, target, ...rest] = positionals
    if (from !== 'wxr' && from !== 'rest') throw new UsageError(from === undefined ? 'missing source: wxr <file> or rest <url>' : `unknown source "${from}" (wxr or rest)`, 'import')
    if (target === undefined || rest.length > 0) throw new UsageError(`expected: cms import ${from} <${from === 'wxr' ? 'file' : 'url'}>`, 'import')
    const password = values.password ?? ctx.env.CMS_IMPORT_PASSWORD
    if (from === 'rest' && (values.user === undefined) !== (password === undefined)) throw new UsageError('--user and --password go together', 'import')
    const allow = [ctx.env.CMS_OUTBOUND_ALLOW ?? '', values['allow-private'] === true ? PRIVATE : ''].filter((s) => s.trim() !== '').join(',')
    const outbound = createOutboundClient({ allow })
    const batchSize = count(values.batch, '--batch', 50)
    const concurrency = count(values.concurrency, '--concurrency', 4)
    const retries = count(values.retries, '--retries', 2, 0)
    if (values.author !== undefined && values.authors !== undefined) throw new UsageError('--author and --authors: one or the other', 'import')
    const authors = values.authors === undefined ? undefined : await authorsFile(values.authors)
    const dryRun = values['dry-run'] === true

    // A bar on a terminal only: records read (and bytes of a file), with rates.
    const terminal = ctx.terminal ?? process.stderr
    const bar = terminal.isTTY === true ? new cliProgress.SingleBar({ format: '{bar} {percentage}% | {records} records, {rate}/s | created {created}, updated {updated}, unchanged {unchanged}, failed {failed}', stream: terminal, hideCursor: true }, cliProgress.Presets.shades_classic) : undefined
    const started = Date.now()
    let bytesTotal = 0
    const payload = (records: number, c?: { created: number, updated: number, unchanged: number, failed: number }): Record<string, unknown> => ({
      records, rate: (records / Math.max(0.001, (Date.now() - started) / 1000)).toFixed(1), created: c?.created ?? 0, updated: c?.updated ?? 0, unchanged: c?.unchanged ?? 0, failed: c?.failed ?? 0
    })
    let records = 0
    let last: Parameters<typeof payload>[1]
    const reader = from === 'wxr'
      ? readWxr(target, (bytes) => { bar?.update(bytes, payload(records, last)) })
      : readRest(target, { outbound, ...(values.user === undefined ? {} : { user: values.user, password: password! }), onPage: (done, total) => { bar?.setTotal(Math.max(total, 1)); bar?.update(done, payload(records, last)) } })
    if (from === 'wxr') {
      const { stat } = await import('node:fs/promises')
      bytesTotal = (await stat(target).catch(() => { throw new UsageError(`no file ${target}`, 'import') })).size
    }
    // Interrupted by Ctrl-C or SIGTERM (a second Ctrl-C ends the process at once).
    const interrupt = new AbortController()
    const onSignal = (): void => { interrupt.abort() }
    const signal = ctx.signal ?? interrupt.signal
    if (ctx.signal === undefined) {
      process.once('SIGINT', onSignal)
      process.once('SIGTERM', onSignal)
    }
    bar?.start(Math.max(bytesTotal, 1), 0, payload(0))
    try {
      const summary = await withStore(ctx, async (store) => await runImport({
        store,
        env: ctx.env,
        records: reader,
        dryRun,
        signal,
        batchSize,
        ...(values.as === undefined ? {} : { as: values.as }),
        ...(values.author === undefined ? {} : { author: values.author }),
        ...(authors === undefined ? {} : { authors }),
        outbound,
        concurrency,
        retries,
        // Lines of a dry run go to standard output; the bar is on standard error.
        out: (line) => { ctx.out(line) },
        tick: (n, c) => {
          records = n
          last = c
          bar?.update(payload(n, c))
        }
      }))
      bar?.stop()
      ctx.out(summaryText(summary, dryRun))
      return summary.interrupted ? 130 : summary.total.failed > 0 ? 1 : 0
    } finally {
      bar?.stop()
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
  }
}
