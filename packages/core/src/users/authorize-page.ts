/**
 * The admin pages behind the `application-passwords` scheme:
 *
 * - `GET/POST {base}/cms-admin/authorize-application.php`: a signed-in user
 *   approves (a new application password, sent to `success_url` or shown
 *   once) or rejects an application's request;
 * - `GET/POST {base}/cms-admin/login`, `POST {base}/cms-admin/logout`: the
 *   sign-in page with the account password (session cookie: HttpOnly,
 *   SameSite=Lax, Secure over https; sessions kept server-side).
 *
 * Every form carries a CSRF token; failed sign-ins are slowed down and, per
 * login and address, limited. Passwords never reach a log. Forms post to
 * relative URLs, so the pages also work behind a proxy that adds a path.
 *
 * Every form post is a write (a session begun or ended, a failure counted,
 * an application password made) and is in the audit log with its outcome,
 * as the REST routes' writes are (`auditedForm`): the form's field names,
 * never their values.
 */
import { createHmac, timingSafeEqual, randomBytes } from 'node:crypto'
import { isIP } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify'
import { RestError } from '@cms/rest'
import type { UserServices as Services } from './services.js'
import { Caller } from './capabilities.js'
import { cachedSiteOptions } from '../base/site-options.js'
import { hidden, html, notice, page, type Html } from './html.js'
import { chunkPassword, verifyAccountPassword } from './passwords.js'
import { siteKey } from '../platform/site-keys/index.js'
import { createApplicationPassword, findUserById, findUserForSignIn, isUuid, type UserRecord } from './store.js'
import {
  clearFailures, createSession, endSession, failureDelayMs, MAX_FAILURES_PER_LOGIN, readSession, recentFailures,
  recordFailure, SESSION_TTL_MS, throttleKeys, type Session
} from './sessions.js'
import { userTextFilter } from './route-helpers.js'

export const AUTHORIZE_PATH = '/cms-admin/authorize-application.php'
export const LOGIN_PATH = '/cms-admin/login'
export const LOGOUT_PATH = '/cms-admin/logout'

const SESSION_COOKIE = 'cms_session'
const NONCE_COOKIE = 'cms_signin_nonce'
const FORM_BODY_LIMIT = 64 * 1024

export interface AuthorizePageOptions {
  services: Services
  /** `local` allows plain-http redirect URLs on any host (default: the deployment's `environment` setting). */
  environment?: string
}

interface AuthorizeRequest {
  appName: string
  appId: string
  successUrl: string
  rejectUrl: string
}

const BAD_SCHEMES = new Set(['javascript', 'data', 'vbscript', 'file', 'blob', 'about', 'filesystem'])

function isLoopbackHost (host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1') return true
  return isIP(h) === 4 && h.startsWith('127.')
}

/**
 * The core's checks of a redirect URL: a scheme and a host, no script or
 * data scheme, https unless the environment is local or the host is this
 * machine. Other schemes (`myapp://callback`) are allowed for native apps.
 */
export function redirectUrlProblem (url: string, local: boolean): string | undefined {
  if (url === '') return undefined
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(url)) return 'Invalid URL format.'
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'Invalid URL format.'
  }
  const scheme = parsed.protocol.slice(0, -1).toLowerCase()
  if (parsed.hostname === '' || BAD_SCHEMES.has(scheme)) return 'Invalid URL format.'
  if (scheme === 'http' && !local && !isLoopbackHost(parsed.hostname)) return 'The URL must be served over a secure connection.'
  return undefined
}

function problemsOf (req: AuthorizeRequest, local: boolean): string[] {
  const problems: string[] = []
  for (const url of [req.successUrl, req.rejectUrl]) {
    const problem = redirectUrlProblem(url, local)
    if (problem !== undefined) problems.push(problem)
  }
  if (req.appId !== '' && !isUuid(req.appId)) problems.push('The application ID must be a UUID.')
  return problems
}

function withParams (url: string, params: Record<string, string>): string {
  const target = new URL(url)
  for (const [k, v] of Object.entries(params)) target.searchParams.append(k, v)
  return target.toString()
}

function parseCookies (header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq <= 0) continue
    const name = part.slice(0, eq).trim()
    if (!(name in out)) out[name] = part.slice(eq + 1).trim()
  }
  return out
}

const str = (value: unknown): string => typeof value === 'string' ? value : ''

/** Sign-in and approval forms are a few short fields. */
const FORM_LIMIT_BYTES = 64 * 1024

/** Fastify's own errors for an unreadable request (415, 413, 400) stay 4xx. */
function clientErrorStatus (err: unknown): number | undefined {
  const status = (err as { statusCode?: unknown }).statusCode
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined
}

function fieldsOf (source: unknown): Record<string, unknown> {
  return typeof source === 'object' && source !== null && !Array.isArray(source) ? source as Record<string, unknown> : {}
}

function sameToken (a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y)
}

/** Only paths of the admin area are followed after signing in (no open redirect). */
function safeAdminPath (value: string): string | undefined {
  if (!value.startsWith('/cms-admin/') || /[\\\u0000-\u001f\u007f]/.test(value)) return undefined
  return value
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** What a form's handler tells its audit entry: who (once known), which object, why it was refused. */
interface FormNote { userId?: number, objectId?: string, errorCode?: string }
const notes = new WeakMap<FastifyRequest, FormNote>()
function note (request: FastifyRequest, add: FormNote): void { notes.set(request, { ...notes.get(request), ...add }) }

/** Field names kept per entry, and their length (the form is the sender's). */
const FORM_FIELDS = 50
const FIELD_NAME = 100

/**
 * A form route's `onResponse` hook: its audit entry, once answered (the
 * handler's note, the status sent). Refusals the handler did not name (an
 * unreadable form) are `cms_admin_invalid_form`, failures `cms_admin_failed`.
 */
function auditedForm (services: Services, objectType: string): onResponseHookHandler {
  return function record (request, reply, done) {
    const n = notes.get(request) ?? {}
    const status = reply.statusCode
    const form = fieldsOf(request.body)
    const action = form.action === 'approve' || form.action === 'reject' ? { action: form.action } : {}
    const userId = n.userId ?? 0
    services.audit.append({
      at: new Date(),
      userId,
      credential: userId === 0 ? 'anonymous' : 'cookie',
      credentialId: null,
      ip: request.ip,
      method: request.method,
      route: request.routeOptions.url ?? '',
      path: request.url.split('?')[0]!,
      objectType,
      objectId: n.objectId ?? null,
      status,
      errorCode: n.errorCode ?? (status >= 500 ? 'cms_admin_failed' : status >= 400 ? 'cms_admin_invalid_form' : null),
      fields: Object.keys(form).slice(0, FORM_FIELDS).map((f) => f.slice(0, FIELD_NAME)),
      values: action
    })
    done()
  }
}

export async function authorizePage (app: FastifyInstance, opts: AuthorizePageOptions): Promise<void> {
  if (opts?.services?.store === undefined) throw new Error('authorizePage: the services (with a store) are required')
  const { store } = opts.services
  const local = (opts.environment ?? opts.services.settings.environment ?? '') === 'local'
  const siteOptions = cachedSiteOptions(store)
  // The pages read their own forms: they may be registered before the REST kernel's parsers exist
  // (after it, they inherit its form parser, which reads the same fields).
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) {
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))))
    })
  }

  const baseOf = (request: FastifyRequest): string => request.baseUrl !== '' ? request.baseUrl : `${request.protocol}://${request.host}`
  const secure = (request: FastifyRequest): boolean => request.protocol === 'https' || baseOf(request).startsWith('https:')

  function cookie (request: FastifyRequest, name: string, value: string, maxAgeSeconds: number): string {
    return `${name}=${value}; Path=/cms-admin; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure(request) ? '; Secure' : ''}`
  }

  async function send (reply: FastifyReply, status: number, title: string, body: Html): Promise<FastifyReply> {
    return await reply.code(status)
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Cache-Control', 'no-store, private')
      .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
      .header('X-Frame-Options', 'DENY')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .send(page(title, body))
  }

  async function redirect (reply: FastifyReply, location: string): Promise<FastifyReply> {
    return await reply.code(303).header('Location', location).header('Cache-Control', 'no-store, private')
      .header('Referrer-Policy', 'no-referrer').send()
  }

  async function signedIn (request: FastifyRequest): Promise<{ session: Session, user: UserRecord, token: string } | undefined> {
    const token = parseCookies(request.headers.cookie)[SESSION_COOKIE]
    const session = await readSession(store, token)
    if (session === undefined || token === undefined) return undefined
    const user = await findUserById(store, session.userId)
    return user === undefined ? undefined : { session, user, token }
  }

  const signInToken = async (nonce: string): Promise<string> =>
    createHmac('sha256', await siteKey(store)).update(`sign-in|${nonce}`).digest('base64url')

  function whoBar (user: UserRecord, csrf: string): Html {
    return html`<form method="post" action="logout" class="meta">Signed in as <strong>${user.displayName}</strong> (${user.login}).
${hidden('csrf', csrf)}<button type="submit" class="secondary">Sign out</button></form>`
  }

  // --- sign in --------------------------------------------------------------

  async function signInForm (request: FastifyRequest, reply: FastifyReply, status: number, redirectTo: string, message?: string, login = ''): Promise<FastifyReply> {
    const nonce = randomBytes(24).toString('base64url')
    reply.header('Set-Cookie', cookie(request, NONCE_COOKIE, nonce, 3600))
    return await send(reply, status, 'Sign in', html`<h1>Sign in</h1>
${notice(message)}
<form method="post" action="login">
${hidden('csrf', await signInToken(nonce))}${hidden('redirect_to', redirectTo)}
<label for="user_login">Username or email address</label>
<input type="text" id="user_login" name="log" value="${login}" autocomplete="username" autocapitalize="off" required>
<label for="user_pass">Password</label>
<input type="password" id="user_pass" name="pwd" autocomplete="current-password" required>
<button type="submit" id="signin-submit">Sign in</button>
</form>`)
  }

  app.get(LOGIN_PATH, async (request, reply) => {
    const redirectTo = safeAdminPath(str(fieldsOf(request.query).redirect_to)) ?? ''
    const current = await signedIn(request)
    if (current !== undefined) {
      if (redirectTo !== '') return await redirect(reply, baseOf(request) + redirectTo)
      return await send(reply, 200, 'Signed in', html`<h1>Signed in</h1>
<p>You are signed in. Applications can now ask you for access from the authorization page.</p>
${whoBar(current.user, current.session.csrf)}`)
    }
    return await signInForm(request, reply, 200, redirectTo)
  })

  // `signIn`: its failures count as failed credential checks (rate limits).
  app.post(LOGIN_PATH, { bodyLimit: FORM_BODY_LIMIT, config: { signIn: true }, onResponse: auditedForm(opts.services, 'session') }, async (request, reply) => {
    const form = fieldsOf(request.body)
    const login = str(form.log).trim()
    const password = str(form.pwd)
    const redirectTo = safeAdminPath(str(form.redirect_to)) ?? ''
    const nonce = parseCookies(request.headers.cookie)[NONCE_COOKIE] ?? ''
    if (nonce === '' || !sameToken(str(form.csrf), await signInToken(nonce))) {
      note(request, { errorCode: 'cms_admin_form_expired' })
      return await signInForm(request, reply, 403, redirectTo, 'The sign-in form expired. Please try again.', login)
    }
    if (login === '' || password === '') {
      note(request, { errorCode: 'cms_admin_missing_fields' })
      return await signInForm(request, reply, 400, redirectTo, 'Enter your username (or email address) and your password.', login)
    }
    const keys = throttleKeys(login, request.ip)
    const recent = await recentFailures(store, keys)
    if (recent.pair >= MAX_FAILURES_PER_LOGIN) {
      note(request, { errorCode: 'cms_admin_too_many_failures' })
      await sleep(failureDelayMs(recent.address))
      reply.header('Retry-After', '900')
      return await signInForm(request, reply, 429, redirectTo, 'Too many failed sign-in attempts. Please wait 15 minutes and try again.', login)
    }
    const found = await findUserForSignIn(store, login)
    // Unknown logins cost the same scrypt as known ones.
    const ok = await verifyAccountPassword(password, found?.passHash)
    const user = found?.user
    if (user === undefined || !ok) {
      note(request, { errorCode: 'cms_admin_incorrect_password' })
      await recordFailure(store, keys)
      await sleep(failureDelayMs(recent.address + 1))
      return await signInForm(request, reply, 401, redirectTo, 'The username or password is incorrect.', login)
    }
    await clearFailures(store, keys)
    note(request, { userId: user.id })
    const { token } = await createSession(store, user.id)
    reply.header('Set-Cookie', [
      cookie(request, SESSION_COOKIE, token, Math.floor(SESSION_TTL_MS / 1000)),
      cookie(request, NONCE_COOKIE, '', 0)
    ])
    return await redirect(reply, baseOf(request) + (redirectTo === '' ? LOGIN_PATH : redirectTo))
  })

  app.post(LOGOUT_PATH, { bodyLimit: FORM_BODY_LIMIT, onResponse: auditedForm(opts.services, 'session') }, async (request, reply) => {
    const current = await signedIn(request)
    if (current !== undefined && sameToken(str(fieldsOf(request.body).csrf), current.session.csrf)) {
      note(request, { userId: current.user.id })
      await endSession(store, current.token)
    } else {
      // Answered as a sign-out all the same (the cookie is cleared): nothing was ended.
      note(request, { ...(current === undefined ? {} : { userId: current.user.id }), errorCode: current === undefined ? 'cms_admin_signed_out' : 'cms_admin_form_expired' })
    }
    reply.header('Set-Cookie', cookie(request, SESSION_COOKIE, '', 0))
    return await redirect(reply, baseOf(request) + LOGIN_PATH)
  })

  // --- authorize an application -----------------------------------------------

  function requestOf (source: Record<string, unknown>): AuthorizeRequest & { malformed: boolean } {
    const names = ['app_name', 'app_id', 'success_url', 'reject_url']
    return {
      appName: str(source.app_name).trim(),
      appId: str(source.app_id).trim(),
      successUrl: str(source.success_url).trim(),
      rejectUrl: str(source.reject_url).trim(),
      malformed: names.some((n) => source[n] !== undefined && typeof source[n] !== 'string')
    }
  }

  async function refuse (reply: FastifyReply, problems: string[]): Promise<FastifyReply> {
    return await send(reply, 400, 'Authorize Application', html`<h1>Authorize Application</h1>
${notice(['The Authorize Application request is not allowed.', ...problems].join(' '))}`)
  }

  async function authorizeForm (
    reply: FastifyReply, status: number, user: UserRecord, session: Session, req: AuthorizeRequest, message?: string
  ): Promise<FastifyReply> {
    const destination = req.successUrl === ''
      ? html`<p>You will be given a password to enter into the application yourself.</p>`
      : html`<p>If you approve, you will be sent to <strong>${new URL(req.successUrl).host}</strong> with the new password.</p>`
    const asked = req.appName === '' ? html`an application` : html`the application <strong>${req.appName}</strong>`
    return await send(reply, status, 'Authorize Application', html`<h1>Authorize Application</h1>
${notice(message)}
<p>Would you like to give ${asked} access to your account? Only do this if you trust the application.</p>
${destination}
<form method="post" action="authorize-application.php">
${hidden('csrf', session.csrf)}${hidden('app_id', req.appId)}${hidden('success_url', req.successUrl)}${hidden('reject_url', req.rejectUrl)}
<label for="app_name">New application password name</label>
<input type="text" id="app_name" name="app_name" value="${req.appName}" required aria-describedby="app_name_help">
<p id="app_name_help" class="meta">The name identifies this password in your list of application passwords.</p>
<button type="submit" id="approve" name="action" value="approve">Yes, I approve of this connection</button>
<button type="submit" id="reject" name="action" value="reject" class="secondary">No, I do not approve of this connection</button>
</form>
${whoBar(user, session.csrf)}`)
  }

  app.get(AUTHORIZE_PATH, async (request, reply) => {
    const current = await signedIn(request)
    if (current === undefined) {
      return await redirect(reply, `${baseOf(request)}${LOGIN_PATH}?redirect_to=${encodeURIComponent(request.url)}`)
    }
    const req = requestOf(fieldsOf(request.query))
    const problems = problemsOf(req, local)
    if (req.malformed) problems.push('Invalid URL format.')
    if (problems.length > 0) return await refuse(reply, problems)
    return await authorizeForm(reply, 200, current.user, current.session, req)
  })

  app.post(AUTHORIZE_PATH, { bodyLimit: FORM_BODY_LIMIT, onResponse: auditedForm(opts.services, 'application-password') }, async (request, reply) => {
    const current = await signedIn(request)
    if (current === undefined) {
      note(request, { errorCode: 'cms_admin_signed_out' })
      return await send(reply, 401, 'Authorize Application', html`<h1>Authorize Application</h1>
${notice('Your session has ended. Sign in again and repeat the request from the application.')}
<p><a href="login">Sign in</a></p>`)
    }
    note(request, { userId: current.user.id })
    const form = fieldsOf(request.body)
    if (!sameToken(str(form.csrf), current.session.csrf)) {
      note(request, { errorCode: 'cms_admin_form_expired' })
      return await send(reply, 403, 'Authorize Application', html`<h1>Authorize Application</h1>
${notice('The link you followed has expired. Go back to the application and try again.')}`)
    }
    const req = requestOf(form)
    const problems = problemsOf(req, local)
    if (req.malformed) problems.push('Invalid URL format.')
    if (problems.length > 0) {
      note(request, { errorCode: 'cms_admin_invalid_request' })
      return await refuse(reply, problems)
    }

    if (form.action === 'reject') {
      // Serialised through URL so nothing raw from the request reaches the Location header.
      const target = req.rejectUrl !== '' ? new URL(req.rejectUrl).href : req.successUrl !== '' ? withParams(req.successUrl, { success: 'false' }) : ''
      if (target !== '') return await redirect(reply, target)
      return await send(reply, 200, 'Authorize Application', html`<h1>Authorize Application</h1>
${notice('You rejected the request. No password was created.', 'success')}
${whoBar(current.user, current.session.csrf)}`)
    }
    if (form.action !== 'approve' || req.appName === '') note(request, { errorCode: 'cms_admin_invalid_request' })
    if (form.action !== 'approve') return await authorizeForm(reply, 400, current.user, current.session, req, 'Choose to approve or reject the connection.')
    if (req.appName === '') {
      return await authorizeForm(reply, 400, current.user, current.session, req, 'An application name is required to create an application password.')
    }
    // The name comes from the application's link: kept as the approving user could have typed it.
    const writer = new Caller(current.user.id, current.user.login, current.user.roles)
    const { password, uuid } = await createApplicationPassword(store, current.user.id, { name: await userTextFilter(writer)(req.appName), appId: req.appId })
    note(request, { objectId: uuid })
    if (req.successUrl !== '') {
      const o = await siteOptions()
      return await redirect(reply, withParams(req.successUrl, {
        site_url: o.url === '' ? baseOf(request) : String(o.url),
        user_login: current.user.login,
        password
      }))
    }
    return await send(reply, 201, 'Authorize Application', html`<h1>Authorize Application</h1>
${notice(`Your new password for ${req.appName} was created.`, 'success')}
<p>Password: <kbd id="new-password">${chunkPassword(password)}</kbd></p>
<p>Enter it into the application now. It will not be shown again; the spaces are optional.</p>
${whoBar(current.user, current.session.csrf)}`)
  })

  app.setErrorHandler(async (err, request, reply) => {
    const status = err instanceof RestError ? err.status : clientErrorStatus(err) ?? 500
    if (status >= 500) request.log.error({ err }, 'admin page failed')
    const message = status >= 500 ? 'Something went wrong. Please try again.' : err instanceof RestError ? err.message : 'The form could not be read.'
    return await send(reply, status, 'Error', html`<h1>Error</h1>${notice(message)}`)
  })
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The sign-in form: its failures count as failed credential checks (rate limits). */
    signIn?: boolean
  }
}
