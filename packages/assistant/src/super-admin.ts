/**
 * assistant/v1 super-admin (seo-rollback-assistant-addons.md §3.5,
 * CONVENTIONS.md §9): `status`, `opt-in`, and `execute`, `list`, `read`,
 * protected three ways: the feature flag (`assistant_super_admin_enabled`,
 * off until an administrator opts in; an explicit `disabled` is kept),
 * `manage_options`, and an execution token in `X-Assistant-Exec-Token`
 * (bound to the user, valid a day, answered by `status` to those who may
 * use it). Flag off or no capability: `rest_forbidden`; no token
 * `403 missing_exec_token`; a bad or expired one `403 invalid_exec_token`.
 *
 * `execute` is `501 execution_not_supported` unless `CMS_ASSISTANT_EXECUTE=1`;
 * then the code runs as JavaScript in the QuickJS sandbox of a worker
 * thread (sandbox.ts), never as PHP and never in this process's engine.
 * `list` and `read` see the content directory only: traversal, absolute
 * paths, NUL, encoded variants and symbolic links out are `400 invalid_path`
 * (both open first, never following a link in the last part, check
 * where the opened file or directory is, then read or list what they
 * opened);
 * at most 1,000 entries (`truncated`); files over 512 KiB `413 file_too_large`.
 * Answers name paths relative to the content directory (its place on the
 * server is not disclosed).
 */
import { constants, type Stats } from 'node:fs'
import { opendir, lstat, open, realpath, stat, type FileHandle } from 'node:fs/promises'
import { join, sep } from 'node:path'
import { Type } from '@sinclair/typebox'
import { check, denied, endpoint, route, RestError, who, type RestRequest, type RelativeRouteDecl } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import { mayManageOptions } from './access.js'
import type { AssistantConfig } from './config.js'
import { assistantErrors } from './errors.js'
import { hmacKey } from './keys.js'
import { executeInSandbox } from './sandbox.js'

export const EXEC_TOKEN_HEADER = 'x-assistant-exec-token'
const TOKEN_TTL_S = 24 * 3600
export const LIST_MAX = 1000
export const READ_MAX_BYTES = 524_288
const FLAG_VALUES = ['', 'active', 'disabled'] as const

/**
 * Where the process's open descriptors are named by number (Linux's
 * /proc/self/fd); null where there is none, and `list` and `read` check the
 * opened file by its path's real location instead (a test sets null to take
 * that way on Linux).
 */
export const descriptors: { dir: string | null } = { dir: '/proc/self/fd' }

/** Whether `path` is now the file `opened` (device and inode). */
async function same (path: string, opened: Stats): Promise<boolean> {
  const there = await stat(path).catch(() => undefined)
  return there !== undefined && there.dev === opened.dev && there.ino === opened.ino
}

/**
 * A path from a request, checked before it reaches the file system: no
 * NUL, no escape (`%`: one decoding was the server's, a second would be a
 * smuggled one), no scheme or drive (`:`), no backslash, not absolute or
 * home-relative, no segment starting with `..` (`..`, `..;`, `....`).
 */
function plainPath (path: string): string {
  const bad = path.length > 4096 || /[\0%:\\]/.test(path) || path.startsWith('/') || path.startsWith('~') ||
    path.split('/').some((s) => s.startsWith('..'))
  if (bad) throw assistantErrors.invalid_path()
  return path
}

/** Relative display form of a checked path ('' is the content directory itself: '.'). */
function shown (path: string): string {
  const parts = path.split('/').filter((s) => s !== '' && s !== '.')
  return parts.length === 0 ? '.' : parts.join('/')
}

export function superAdminRoutes (api: PackageApi, config: AssistantConfig): RelativeRouteDecl[] {
  const flag = api.option('assistant_super_admin_enabled', Type.Union(FLAG_VALUES.map((v) => Type.Literal(v))), { default: '', description: 'Super Admin mode: "active", "disabled" (an administrator\'s explicit choice, kept by opt-in) or "" (never set: off).' })
  const tokens = hmacKey(api, 'assistant_exec_token_key', 'The key execution tokens are signed with (sealed).')

  async function issueToken (userId: number): Promise<{ token: string, expires: number }> {
    const expires = Math.floor(Date.now() / 1000) + TOKEN_TTL_S
    return { token: `${expires}.${await tokens.sign(`exec|${userId}|${expires}`)}`, expires }
  }

  async function tokenValid (userId: number, token: string): Promise<boolean> {
    const m = /^(\d{1,12})\.([A-Za-z0-9_-]{1,100})$/.exec(token)
    if (m === null) return false
    const expires = Number(m[1])
    const now = Math.floor(Date.now() / 1000)
    if (expires <= now || expires > now + TOKEN_TTL_S) return false
    return await tokens.verify(`exec|${userId}|${expires}`, m[2]!)
  }

  /** The three locks, in the notes' order; side-effect free (the Allow header calls it). */
  // §3.5: the flag (off on a fresh site), manage_options and an execution token; the probes meet the flag off.
  const mayExecute = check(async (req: RestRequest<any>): Promise<true | RestError> => {
    const refused = denied(assistantErrors.rest_forbidden(), req.user.id)
    if (!req.user.can('manage_options')) return refused
    if (await req.memo('assistant:super-admin-flag', async () => await flag.get()) !== 'active') return refused
    const header = req.headers[EXEC_TOKEN_HEADER]
    const token = Array.isArray(header) ? header[0] : header
    if (token === undefined || token === '') return assistantErrors.missing_exec_token()
    return await tokenValid(req.user.id, token) ? true : assistantErrors.invalid_exec_token()
  }, who.nobody('§3.5 execute, list, read: the flag (off on a fresh site), manage_options and an execution token: refused to all'))

  const pathArg = { path: Type.String({ description: 'A path relative to the content directory.' }) }

  async function resolve (path: string): Promise<string> {
    try {
      return await api.resolveContent(plainPath(path))
    } catch (err) {
      if (err instanceof RestError && err.code === 'rest_invalid_path') throw assistantErrors.invalid_path()
      throw err
    }
  }

  /**
   * Whether the opened file is inside the content directory, answered as a
   * path that names it (undefined when it is not inside). On Linux, the
   * descriptor's own path (/proc/self/fd/N names the file it holds, whatever
   * was renamed or linked since), answered as such. Elsewhere, the path
   * checked again now the file is open: its real location inside, and the
   * same file (device and inode) as the descriptor; that real location is
   * answered.
   */
  async function openedInside (handle: FileHandle, file: string, opened: Stats): Promise<string | undefined> {
    const root = await api.resolveContent('')
    const inside = (p: string): boolean => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep)
    const own = descriptors.dir === null ? undefined : `${descriptors.dir}/${handle.fd}`
    const held = own === undefined ? undefined : await realpath(own).catch(() => undefined)
    if (held !== undefined) return inside(held) ? own : undefined
    const now = await realpath(file).catch(() => undefined)
    if (now === undefined || !inside(now)) return undefined
    return await same(now, opened) ? now : undefined
  }

  return [
    route({
      path: '/super-admin/status',
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'Whether Super Admin mode is on; when it is, an execution token for the caller (valid a day)',
        response: Type.Object({ enabled: Type.Boolean(), exec_token: Type.Optional(Type.String()), exec_token_expires: Type.Optional(Type.Unknown()), exec_token_header: Type.Optional(Type.String()), execute_enabled: Type.Optional(Type.Boolean()) }),
        permission: mayManageOptions.because('§3.5 status: manage_options'),
        handler: async (req) => {
          const enabled = await flag.get() === 'active'
          if (!enabled) return { enabled }
          const { token, expires } = await issueToken(req.user.id)
          return { enabled, exec_token: token, exec_token_expires: expires, exec_token_header: 'X-Assistant-Exec-Token', execute_enabled: config.execute }
        }
      })]
    }),
    route({
      path: '/super-admin/opt-in',
      endpoints: [endpoint({
        methods: ['POST'],
        args: {},
        summary: 'Turn Super Admin mode on (unless an administrator disabled it)',
        response: Type.Object({ success: Type.Boolean(), message: Type.String() }),
        permission: mayManageOptions.because('§3.5 opt-in: manage_options'),
        handler: async () => {
          if (await flag.get() === 'disabled') throw assistantErrors.super_admin_explicitly_disabled()
          await flag.set('active')
          return { success: true, message: 'Super Admin mode enabled' }
        }
      })]
    }),
    route({
      path: '/super-admin/execute',
      endpoints: [endpoint({
        methods: ['POST'],
        // Limited as expensive (rate limits): runs code in the sandbox.
        rateClass: 'expensive',
        args: { code: Type.String({ description: 'JavaScript to run in the sandbox (the value of its last expression, or of a top-level return, is answered).', maxLength: 1_048_576 }) },
        summary: 'Run code in the sandbox (off unless CMS_ASSISTANT_EXECUTE=1)',
        response: Type.Object({ success: Type.Boolean(), return_value: Type.Unknown(), output: Type.String(), errors: Type.Array(Type.Object({ type: Type.String(), message: Type.String(), file: Type.String(), line: Type.Union([Type.Integer(), Type.Null()]) })), execution_time_ms: Type.Number(), requires_reload: Type.String(), error_message: Type.Optional(Type.String()), error_class: Type.Optional(Type.String()) }),
        permission: mayExecute.probing({ body: { code: '1' } }),
        handler: async (req) => {
          if (!config.execute) throw assistantErrors.execution_not_supported()
          if (req.params.code.trim() === '') throw assistantErrors.empty_code()
          return await executeInSandbox(req.params.code, { timeoutMs: config.timeoutMs, memoryBytes: config.memoryBytes })
        }
      })]
    }),
    route({
      path: '/super-admin/list',
      endpoints: [endpoint({
        methods: ['GET'],
        args: pathArg,
        summary: 'The entries of a directory under the content directory (at most 1,000)',
        response: Type.Object({ path: Type.String(), entries: Type.Array(Type.Object({ name: Type.String(), type: Type.String({ description: 'dir, file or link.' }), size: Type.Union([Type.Integer(), Type.Null()]) })), truncated: Type.Boolean() }),
        permission: mayExecute.probing({ query: { path: '.' } }),
        handler: async (req) => {
          const dir = await resolve(req.params.path)
          // Opened first (a final-component link is not followed, nothing but a directory is opened), then what
          // was opened is checked, and listed through its descriptor: a link swapped in is never followed.
          const held = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(async (err: NodeJS.ErrnoException) => {
            // A link in the last part fails the open (ELOOP, or ENOTDIR with O_DIRECTORY): named as the link it is.
            const link = err.code === 'ELOOP' || (err.code === 'ENOTDIR' && (await lstat(dir).catch(() => undefined))?.isSymbolicLink() === true)
            throw link ? assistantErrors.invalid_path() : err.code === 'ENOENT' || err.code === 'ENOTDIR' ? assistantErrors.not_a_directory() : err
          })
          const entries: Array<{ name: string, type: 'dir' | 'file' | 'link', size: number | null }> = []
          let truncated = false
          try {
            const opened = await held.stat()
            if (!opened.isDirectory()) throw assistantErrors.not_a_directory()
            const base = await openedInside(held, dir, opened)
            if (base === undefined) throw assistantErrors.invalid_path()
            // Read entry by entry: a huge directory costs no more than 1,001 entries.
            const handle = await opendir(base)
            try {
              for await (const e of handle) {
                if (entries.length === LIST_MAX) {
                  truncated = true
                  break
                }
                const type = e.isDirectory() ? 'dir' : e.isSymbolicLink() ? 'link' : 'file'
                const size = type === 'file' ? (await lstat(join(base, e.name)).catch(() => undefined))?.size ?? null : null
                entries.push({ name: e.name, type, size })
              }
            } finally {
              await handle.close().catch(() => {})
            }
            // Without descriptor paths the directory was listed by its real location: still the one opened.
            if (!await same(base, opened)) throw assistantErrors.invalid_path()
          } finally {
            await held.close()
          }
          entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
          return { path: shown(req.params.path), entries, truncated }
        }
      })]
    }),
    route({
      path: '/super-admin/read',
      endpoints: [endpoint({
        methods: ['GET'],
        args: pathArg,
        summary: 'A file under the content directory (at most 512 KiB)',
        response: Type.Object({ path: Type.String(), size: Type.Integer(), content: Type.String() }),
        permission: mayExecute.probing({ query: { path: 'x' } }),
        handler: async (req) => {
          const file = await resolve(req.params.path)
          const checked = await lstat(file).catch(() => undefined)
          if (checked === undefined || !checked.isFile()) throw assistantErrors.not_a_file()
          // The check above and the read below must concern the same file: the file is opened first (a
          // final-component link is not followed; a FIFO swapped in does not block), then what was opened is checked.
          const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
            throw err.code === 'ELOOP' ? assistantErrors.invalid_path() : err.code === 'ENOENT' || err.code === 'ENOTDIR' ? assistantErrors.not_a_file() : err
          })
          try {
            const opened = await handle.stat()
            if (!opened.isFile()) throw assistantErrors.not_a_file()
            if (await openedInside(handle, file, opened) === undefined) throw assistantErrors.invalid_path()
            if (opened.size > READ_MAX_BYTES) throw assistantErrors.file_too_large({ size: opened.size, max: READ_MAX_BYTES }, `The file is larger than ${READ_MAX_BYTES} bytes.`).withStatus(413)
            // Read at most the limit, whatever the file grew to since the check.
            const buf = Buffer.alloc(READ_MAX_BYTES + 1)
            const { bytesRead } = await handle.read(buf, 0, buf.length, 0)
            if (bytesRead > READ_MAX_BYTES) throw assistantErrors.file_too_large(undefined, `The file is larger than ${READ_MAX_BYTES} bytes.`).withStatus(413)
            return { path: shown(req.params.path), size: bytesRead, content: buf.subarray(0, bytesRead).toString('utf8') }
          } finally {
            await handle.close()
          }
        }
      })]
    })
  ]
}
