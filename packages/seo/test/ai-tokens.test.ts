/**
 * The AI generator's token refresh through HTTP, against a local stand-in
 * for the AI service that calls the site's callbacks as the real one does:
 * an access token past its `exp` is refreshed (`token/refresh` with the
 * refresh token) before the call; one the service refuses with 401 is
 * refreshed and the call made once more; a refused refresh token starts
 * over with `token/request`. The new tokens are sealed at rest and appear
 * in no answer and no log line.
 */
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { getUserMeta, setUserMeta } from '@cms/core'
import { testApp, type TestApp } from '@cms/testing'
import { seoPackage } from '../src/index.js'

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex')
const jwt = (exp: number, id: string): string =>
  `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ exp, jti: id })).toString('base64url')}.sig-${id}`
const nowS = (): number => Math.floor(Date.now() / 1000)

t.test('AI token refresh', async (t) => {
  // The app, once made (the service below calls it back).
  const site: { h?: TestApp } = {}
  const received: Array<{ path: string, auth: string | undefined }> = []
  /** Access tokens (by their `jti`) and refresh tokens the service refuses (revoked on its side). */
  const refused = new Set<string>()
  let issued = 0
  // The AI service: token routes answer by calling the site's callback first.
  const service = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      void (async () => {
        const path = req.url!
        const auth = req.headers.authorization
        received.push({ path, auth })
        const body = chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'))
        const send = (status: number, json: unknown): void => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(json)) }
        if (path === '/api/token/refresh' || path === '/api/token/request') {
          if (path === '/api/token/refresh' && refused.has(String(auth).replace('Bearer ', ''))) { send(401, { message: 'refresh token revoked' }); return }
          issued++
          const callback = path === '/api/token/refresh' ? 'refresh_callback' : 'callback'
          const stored = await site.h!.call('POST', `/seo/v1/ai_generator/${callback}`, {
            body: { access_jwt: jwt(nowS() + 3600, `access-${issued}`), refresh_jwt: `refresh-SECRET-${issued}`, code_challenge: body.code_challenge, user_id: body.user_id }
          })
          send(stored.status === 200 ? 200 : 500, {})
          return
        }
        if (path === '/api/openai/suggestions/seo-title') {
          const token = String(auth).replace('Bearer ', '')
          const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString() || '{}')
          if (refused.has(claims.jti) || claims.exp < nowS()) { send(401, { message: 'expired' }); return }
          send(200, { choices: [{ text: `Boots (${token.slice(-8)})` }] })
          return
        }
        send(404, {})
      })()
    })
  })
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { service.closeAllConnections(); service.close() })
  const logLines: string[] = []
  const h = site.h = await testApp({
    packages: [seoPackage],
    namespaces: ['cms/v2', 'seo/v1'],
    logLines,
    env: { CMS_UPSTREAM_AI_GENERATOR_URL: `http://127.0.0.1:${(service.address() as AddressInfo).port}/api` }
  })
  t.teardown(h.close)
  const author = await h.caller('author')
  const store = h.platform.services.store
  const answers: unknown[] = []
  const suggest = async (): Promise<{ status: number, body: any }> => {
    const res = await h.call('POST', '/seo/v1/ai_generator/get_suggestions', { as: author, body: { type: 'seo-title', prompt_content: 'About boots', focus_keyphrase: 'boots', language: 'en', platform: 'search_engine', editor: 'block' } })
    answers.push(res.body)
    return res
  }
  const paths = (from: number): string[] => received.slice(from).map((r) => r.path)

  // The user's first tokens: an access token that has already expired.
  const expired = jwt(nowS() - 60, 'expired')
  await setUserMeta(store, author.id, '_seo_ai_generator_code_verifier', { code: 'v0', created_at: nowS() })
  t.equal((await h.call('POST', '/seo/v1/ai_generator/callback', { body: { access_jwt: expired, refresh_jwt: 'refresh-SECRET-0', code_challenge: sha256('v0'), user_id: author.id } })).status, 200)

  t.test('an expired access token is refreshed before the call', async (t) => {
    const from = received.length
    const res = await suggest()
    t.same([res.status, res.body], [200, ['Boots (access-1)']])
    t.same(paths(from), ['/api/token/refresh', '/api/openai/suggestions/seo-title'], 'refreshed first, then called once')
    t.equal(received[from]!.auth, 'Bearer refresh-SECRET-0', 'with the refresh token')
    const sealed = await getUserMeta<string>(store, author.id, '_seo_ai_generator_tokens')
    t.ok(typeof sealed === 'string' && !sealed.includes('refresh-SECRET-1') && !sealed.includes('access-1'), 'the new tokens are sealed')
    const again = received.length
    t.equal((await suggest()).status, 200)
    t.same(paths(again), ['/api/openai/suggestions/seo-title'], 'a valid token is used as it is')
  })

  t.test('a token the service refuses is refreshed and the call made once more', async (t) => {
    refused.add('access-1')
    const from = received.length
    const res = await suggest()
    t.same([res.status, res.body], [200, ['Boots (access-2)']])
    t.same(paths(from), ['/api/openai/suggestions/seo-title', '/api/token/refresh', '/api/openai/suggestions/seo-title'])
  })

  t.test('a refused refresh token starts over with a token request', async (t) => {
    refused.add('access-2')
    refused.add('refresh-SECRET-2')
    const from = received.length
    const res = await suggest()
    t.same([res.status, res.body], [200, ['Boots (access-3)']])
    t.same(paths(from), ['/api/openai/suggestions/seo-title', '/api/token/refresh', '/api/token/request', '/api/openai/suggestions/seo-title'])
  })

  t.test('a service that keeps refusing: the error, not a loop', async (t) => {
    for (let i = 3; i <= 9; i++) refused.add(`access-${i}`)
    const from = received.length
    const res = await suggest()
    t.same([res.status, res.body.code, res.body.data.upstream_status], [502, 'rest_upstream_error', 401])
    t.equal(paths(from).filter((p) => p.endsWith('/suggestions/seo-title')).length, 2, 'called at most twice')
  })

  t.test('tokens in no answer and no log line', async (t) => {
    const text = JSON.stringify(answers) + logLines.join('\n')
    for (let i = 0; i <= issued; i++) t.notOk(text.includes(`refresh-SECRET-${i}`), `refresh token ${i}`)
    t.notOk(text.includes(expired), 'the first access token')
  })
})
