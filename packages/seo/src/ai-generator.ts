/**
 * The AI generator (seo-rollback-assistant-addons.md §1.3), behind the
 * upstream `ai-generator` (`CMS_UPSTREAM_AI_GENERATOR_URL`; its `_TOKEN`
 * is not used: each request carries the user's own access token):
 *
 *   ai_generator/callback, refresh_callback  public server-to-server callbacks: the service hands a user's tokens
 *   ai_generator/consent                     give (tells the service) or revoke (always possible) the user's consent
 *   ai_generator/get_suggestions             titles or descriptions for a post (the `text` of each choice)
 *   ai_generator/get_usage                   the service's usage answer, unchanged
 *   ai_generator/bust_subscription_cache     answers as the real product (no subscription is cached here)
 *   ai/free_sparks                           starts the free trial (local)
 *
 * The token flow: a user without tokens gets a random code verifier (kept 5
 * minutes in their private meta) and the service is asked for tokens with
 * its SHA-256 (hex) and the two callback URLs; the service calls a callback
 * with the tokens, the challenge and the user id, which must match the
 * stored verifier exactly. An access token past its `exp` (or one the
 * service refuses with 401) is refreshed the same way through
 * `token/refresh` with the refresh token, then the call is made once more;
 * a refused refresh token starts over. Tokens are sealed at rest (`api.secrets`), never
 * logged and never answered. Every route but the callbacks needs
 * `edit_posts`. Arguments are validated before the upstream is asked for,
 * so a bad request is a 400 whether or not the service is configured.
 */
import { createHash, randomBytes } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import { check, endpoint, Enum, kernelErrors, RestError, route, who, type RelativeRouteDecl, type RestRequest, secret } from '@cms/rest'
import type { PackageApi, UpstreamClient } from '@cms/core'
import { mayEditPosts } from './access.js'
import { seoErrors } from './errors.js'
import { USER_KEYS, type SeoOptions, type UserState } from './state.js'

export const AI_UPSTREAM = 'ai-generator'
export const EDITORS = ['classic', 'builder', 'block'] as const
const SUGGESTION_TYPES = ['seo-title', 'meta-description', 'product-seo-title', 'product-meta-description', 'product-taxonomy-seo-title', 'product-taxonomy-meta-description', 'taxonomy-seo-title', 'taxonomy-meta-description'] as const
const PLATFORMS = ['search_engine', 'social_a', 'social_b'] as const
const VERIFIER_TTL_S = 300
const NO_PROOF = { anonymous: 401, subscriber: 401, contributor: 401, author: 401, editor: 401, administrator: 401 } as const

interface Verifier { code: string, created_at: number }
interface Tokens { access: string, refresh: string }

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex')
const now = (): number => Math.floor(Date.now() / 1000)

/** The user's tokens and the service's client, shared with the content planner. */
export interface AiAccess {
  /** The user's access token: asked for when there is none, refreshed when it has expired. */
  accessToken: (req: RestRequest, client: UpstreamClient) => Promise<string>
  /** Runs `call` with the user's access token; a 401 from the service refreshes the tokens and runs it once more. */
  withToken: <T>(req: RestRequest, client: UpstreamClient, call: (token: string) => Promise<T>) => Promise<T>
}

/** Seconds a token must still be valid for to be used (a request takes a while). */
const EXPIRY_MARGIN_S = 30

/** The `exp` claim of a JWT (Unix seconds), or undefined when the token is not a JWT with one (then it is used until refused). */
export function expiryOf (jwt: string): number | undefined {
  const payload = jwt.split('.')[1]
  if (payload === undefined || payload.length > 8192) return undefined
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp
    return typeof exp === 'number' && Number.isFinite(exp) ? exp : undefined
  } catch { return undefined }
}

const isUnauthorized = (err: unknown): boolean => err instanceof RestError && err.data.upstream_status === 401

export function aiAccess (api: PackageApi, users: UserState): AiAccess {
  const read = async (userId: number): Promise<Tokens | undefined> => {
    const sealed = await users.get<string>(userId, USER_KEYS.aiTokens)
    if (typeof sealed !== 'string') return undefined
    try { return JSON.parse(await api.secrets.open(sealed)) as Tokens } catch { return undefined }
  }
  /**
   * Asks the service for tokens (`token/request`, or `token/refresh` with
   * the refresh token): it answers by calling a callback with them, checked
   * against a fresh verifier's SHA-256, before it answers this request.
   */
  const obtain = async (req: RestRequest, client: UpstreamClient, refresh?: string): Promise<string> => {
    const before = await read(req.user.id)
    const code = randomBytes(32).toString('base64url')
    await users.set(req.user.id, USER_KEYS.aiCodeVerifier, { code, created_at: now() } satisfies Verifier)
    const base = `${req.siteUrl !== '' ? req.siteUrl : req.baseUrl}/index.php?rest_route=/seo/v1/ai_generator`
    if (refresh === undefined) {
      await client.request('token/request', {
        method: 'POST',
        json: { service: 'openai', code_challenge: sha256(code), user_id: req.user.id, callback_url: `${base}/callback`, refresh_callback_url: `${base}/refresh_callback` }
      })
    } else {
      await client.request('token/refresh', { method: 'POST', headers: { authorization: `Bearer ${refresh}` }, json: { code_challenge: sha256(code), user_id: req.user.id } })
    }
    const tokens = await read(req.user.id)
    if (tokens === undefined || (refresh !== undefined && tokens.access === before?.access)) {
      throw kernelErrors.rest_upstream_error({ upstream: AI_UPSTREAM }, 'The AI service did not send this user\'s tokens.')
    }
    return tokens.access
  }
  /** New tokens from the refresh token; a refused refresh token is dropped and new tokens asked for. */
  const refreshed = async (req: RestRequest, client: UpstreamClient, tokens: Tokens): Promise<string> => {
    try {
      return await obtain(req, client, tokens.refresh)
    } catch (err) {
      if (!isUnauthorized(err)) throw err
      await users.remove(req.user.id, USER_KEYS.aiTokens)
      return await obtain(req, client)
    }
  }
  const accessToken = async (req: RestRequest, client: UpstreamClient): Promise<string> => {
    const known = await read(req.user.id)
    if (known === undefined) return await obtain(req, client)
    const exp = expiryOf(known.access)
    return exp !== undefined && exp - EXPIRY_MARGIN_S <= now() ? await refreshed(req, client, known) : known.access
  }
  return {
    accessToken,
    async withToken (req, client, call) {
      const token = await accessToken(req, client)
      try {
        return await call(token)
      } catch (err) {
        if (!isUnauthorized(err)) throw err
        const known = await read(req.user.id)
        return await call(known === undefined ? await obtain(req, client) : await refreshed(req, client, known))
      }
    }
  }
}

export function aiGeneratorRoutes (api: PackageApi, users: UserState, options: SeoOptions, access: AiAccess): RelativeRouteDecl[] {
  const tokenCallback = (path: string, summary: string): RelativeRouteDecl => route({
    path,
    endpoints: [endpoint({
      methods: ['POST'],
      args: {
        access_jwt: secret(Type.String({ description: 'The access token.', minLength: 1, maxLength: 8192 })),
        refresh_jwt: secret(Type.String({ description: 'The token that refreshes the access token.', minLength: 1, maxLength: 8192 })),
        code_challenge: Type.String({ description: 'The SHA-256 (hex) of the code verifier the site sent.', maxLength: 128 }),
        user_id: Type.Integer({ description: 'The user the tokens are for.', minimum: 1 })
      },
      summary,
      response: Type.Object({ message: Type.String(), code_verifier: Type.String() }),
      // Public: the AI service calls it; the stored code verifier is the proof (the probe has none: 401 for all).
      permission: check(() => true, who.outcomes(NO_PROOF, '§1.3 AI callback: public; the probe\'s challenge matches no stored verifier', { body: { access_jwt: 'a', refresh_jwt: 'r', code_challenge: 'c', user_id: 1 } })),
      handler: async (req) => {
        const userId = req.params.user_id
        const verifier = await users.get<Verifier>(userId, USER_KEYS.aiCodeVerifier)
        const fresh = verifier !== undefined && typeof verifier.code === 'string' && now() - verifier.created_at <= VERIFIER_TTL_S
        if (!fresh || sha256(verifier.code) !== req.params.code_challenge) throw seoErrors.seo_ai_unauthorized()
        const sealed = await api.secrets.seal(JSON.stringify({ access: req.params.access_jwt, refresh: req.params.refresh_jwt } satisfies Tokens))
        await users.set(userId, USER_KEYS.aiTokens, sealed)
        await users.remove(userId, USER_KEYS.aiCodeVerifier)
        return { message: 'Tokens successfully stored.', code_verifier: verifier.code }
      }
    })]
  })

  const consent = route({
    path: '/ai_generator/consent',
    endpoints: [endpoint({
      methods: ['POST'],
      args: { consent: Type.Boolean({ description: 'Give (true) or revoke (false) consent to the AI service.' }) },
      summary: 'Give or revoke the current user\'s consent to the AI service',
      response: Type.String({ description: 'What was done.' }),
      permission: mayEditPosts,
      handler: async (req) => {
        if (req.params.consent) {
          await api.upstream(AI_UPSTREAM).request('user/consent', { method: 'POST', json: { user_id: req.user.id } })
          await users.set(req.user.id, USER_KEYS.aiConsent, true)
          return 'Consent successfully given.'
        }
        // Revoking always works here; the service is told when there is one.
        await users.remove(req.user.id, USER_KEYS.aiConsent)
        await users.remove(req.user.id, USER_KEYS.aiTokens)
        if (api.services.upstreams.configured(AI_UPSTREAM)) await api.upstream(AI_UPSTREAM).request('user/consent', { method: 'DELETE', json: { user_id: req.user.id } })
        return 'Consent successfully revoked.'
      }
    })]
  })

  const suggestions = route({
    path: '/ai_generator/get_suggestions',
    endpoints: [endpoint({
      methods: ['POST'],
      // Each call is a request to the AI provider, paid from the site's quota.
      rateClass: 'expensive',
      args: {
        type: Enum(SUGGESTION_TYPES, { description: 'What to suggest.' }),
        prompt_content: Type.String({ description: 'The content the suggestions are for.', maxLength: 100_000 }),
        focus_keyphrase: Type.String({ description: 'The focus keyphrase.', maxLength: 200 }),
        language: Type.String({ description: 'The content\'s language.', maxLength: 50 }),
        platform: Enum(PLATFORMS, { description: 'Where the text appears.' }),
        editor: Enum(EDITORS, { description: 'The editor in use.' })
      },
      summary: 'AI suggestions for a title or description',
      response: Type.Array(Type.String()),
      permission: mayEditPosts,
      handler: async (req) => {
        const client = api.upstream(AI_UPSTREAM)
        const p = req.params
        const res = await access.withToken(req, client, async (token) => await client.request(`openai/suggestions/${p.type}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          json: { service: 'openai', user_id: req.user.id, subject: { content: p.prompt_content, focus_keyphrase: p.focus_keyphrase, language: p.language, platform: p.platform, editor: p.editor } }
        }))
        const body = res.json() as { choices?: unknown }
        if (!Array.isArray(body?.choices)) throw kernelErrors.rest_upstream_error({ upstream: AI_UPSTREAM }, 'The AI service answered no choices.')
        return body.choices.map((c: unknown) => typeof c === 'object' && c !== null && typeof (c as { text?: unknown }).text === 'string' ? (c as { text: string }).text.trim() : '').filter((s) => s !== '')
      }
    })]
  })

  const usage = route({
    path: '/ai_generator/get_usage',
    endpoints: [endpoint({
      methods: ['POST'],
      args: { is_shop_product_entity: Type.Boolean({ description: 'Whether the entity is a shop product.', default: false }) },
      summary: 'How many AI generations the user has used',
      response: Type.Unknown({ description: 'The AI service\'s answer, passed on.' }),
      permission: mayEditPosts,
      handler: async (req) => {
        const client = api.upstream(AI_UPSTREAM)
        // No paid subscription is known here: the free usage.
        return (await access.withToken(req, client, async (token) => await client.request('usage/free-usages', { headers: { authorization: `Bearer ${token}` } }))).json()
      }
    })]
  })

  const bust = route({
    path: '/ai_generator/bust_subscription_cache',
    endpoints: [endpoint({
      methods: ['POST'],
      args: {},
      summary: 'Forget the cached subscription information',
      response: Type.String(),
      permission: mayEditPosts,
      handler: () => 'Subscription cache successfully busted.'
    })]
  })

  const sparks = route({
    path: '/ai/free_sparks',
    endpoints: [endpoint({
      methods: ['POST'],
      args: {},
      summary: 'Start the free AI trial',
      response: Type.String(),
      permission: mayEditPosts,
      handler: async () => {
        await options.ai_free_sparks_started_on.set(now())
        return 'Free sparks successfully started.'
      }
    })]
  })

  const tokens = tokenCallback('/ai_generator/callback', 'Store a user\'s AI tokens (called by the AI service)')
  const refreshed = tokenCallback('/ai_generator/refresh_callback', 'Store a user\'s refreshed AI tokens (called by the AI service)')
  return [tokens, refreshed, consent, suggestions, usage, bust, sparks]
}
