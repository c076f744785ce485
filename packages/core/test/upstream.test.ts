/**
 * Upstream ports against HTTP servers this test starts on loopback: the
 * settings named after the upstream, the 503 naming the setting when it is
 * not configured, the base URL, token and timeout applied, and failures
 * mapped to 502 / 504.
 */
import type { IncomingMessage } from 'node:http'
import t from 'tap'
import { RestError } from '@cms/rest'
import { freePort } from '@cms/store/testing'
import { startServer } from './fixtures/loopback.js'
import { Upstreams, upstreamConfigFromEnv, upstreamSetting } from '../src/platform/upstream.js'

async function readBody (req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

async function restError (p: Promise<unknown> | (() => unknown)): Promise<RestError> {
  try {
    await (typeof p === 'function' ? p() : p)
  } catch (err) {
    if (err instanceof RestError) return err
    throw err
  }
  throw new Error('expected a RestError')
}

t.test('settings are named after the upstream and checked at start', async (t) => {
  t.equal(upstreamSetting('rank-tracker', 'URL'), 'CMS_UPSTREAM_RANK_TRACKER_URL')
  t.equal(upstreamSetting('nps-survey', 'TIMEOUT_MS'), 'CMS_UPSTREAM_NPS_SURVEY_TIMEOUT_MS')
  t.throws(() => upstreamSetting('Rank_Tracker', 'URL'), /lowercase/)
  t.same(upstreamConfigFromEnv({
    CMS_UPSTREAM_RANK_TRACKER_URL: 'https://rank.example/api',
    CMS_UPSTREAM_RANK_TRACKER_TOKEN: 's3cret',
    CMS_UPSTREAM_RANK_TRACKER_TIMEOUT_MS: '2500',
    CMS_UPSTREAM_METRICS_URL: 'http://metrics.example/',
    CMS_UPSTREAM_EMPTY_URL: '',
    PATH: '/usr/bin'
  }), {
    RANK_TRACKER: { url: 'https://rank.example/api/', token: 's3cret', timeoutMs: 2500 },
    METRICS: { url: 'http://metrics.example/', timeoutMs: 10000 }
  })
  // The settings' one-line form (SettingError, as the gateway's): the setting, the value, what is allowed.
  const absolute = 'an absolute http(s) base URL such as https://service.example/api/'
  const bad: Array<[Record<string, string>, string]> = [
    [{ CMS_UPSTREAM_X_URL: 'ftp://x.example/' }, `CMS_UPSTREAM_X_URL must be ${absolute}, got "ftp://x.example/"`],
    [{ CMS_UPSTREAM_X_URL: 'not a url' }, `CMS_UPSTREAM_X_URL must be ${absolute}, got "not a url"`],
    [{ CMS_UPSTREAM_X_URL: 'https://u:p@x.example/' }, 'CMS_UPSTREAM_X_URL must be a URL without credentials (they go in CMS_UPSTREAM_X_TOKEN), got "https://u:***@x.example/"'],
    [{ CMS_UPSTREAM_X_URL: 'https://x.example/?a=1' }, 'CMS_UPSTREAM_X_URL must be a base URL without query or fragment, got "https://x.example/?a=1"'],
    [{ CMS_UPSTREAM_X_TOKEN: 't0k3n' }, "CMS_UPSTREAM_X_URL must be set when CMS_UPSTREAM_X_TOKEN is (the outside service's base URL)"],
    [{ CMS_UPSTREAM_X_TIMEOUT_MS: '500' }, "CMS_UPSTREAM_X_URL must be set when CMS_UPSTREAM_X_TIMEOUT_MS is (the outside service's base URL)"],
    [{ CMS_UPSTREAM_X_URL: 'https://x.example/', CMS_UPSTREAM_X_TIMEOUT_MS: '5s' }, 'CMS_UPSTREAM_X_TIMEOUT_MS must be an integer from 100 to 600000 (milliseconds), got "5s"'],
    [{ CMS_UPSTREAM_X_URL: 'https://x.example/', CMS_UPSTREAM_X_TIMEOUT_MS: '10' }, 'CMS_UPSTREAM_X_TIMEOUT_MS must be an integer from 100 to 600000 (milliseconds), got "10"'],
    [{ CMS_UPSTREAM_X_ENDPOINT: 'sekrit' }, 'CMS_UPSTREAM_X_ENDPOINT must be an upstream setting, named CMS_UPSTREAM_<NAME>_URL, _TOKEN or _TIMEOUT_MS with <NAME> in capitals (RANK_TRACKER)'],
    [{ CMS_UPSTREAM_URL: 'https://x.example/' }, 'CMS_UPSTREAM_URL must be an upstream setting, named CMS_UPSTREAM_<NAME>_URL, _TOKEN or _TIMEOUT_MS with <NAME> in capitals (RANK_TRACKER)']
  ]
  for (const [env, message] of bad) t.throws(() => upstreamConfigFromEnv(env), { name: 'SettingError', code: 'setting_invalid', message }, Object.keys(env).join(','))
})

t.test('an upstream that is not configured is a 503 naming its setting', async (t) => {
  const upstreams = new Upstreams(upstreamConfigFromEnv({ CMS_UPSTREAM_OTHER_URL: 'http://127.0.0.1:9/' }))
  t.equal(upstreams.configured('rank-tracker'), false)
  t.equal(upstreams.configured('other'), true)
  const err = await restError(() => upstreams.get('rank-tracker'))
  t.equal(err.status, 503)
  t.equal(err.code, 'rest_upstream_unconfigured')
  t.match(err.message, /CMS_UPSTREAM_RANK_TRACKER_URL/)
  t.same(err.data, { status: 503, upstream: 'rank-tracker', setting: 'CMS_UPSTREAM_RANK_TRACKER_URL' })
})

t.test('a configured upstream: base URL, token, JSON both ways', async (t) => {
  const seen: Array<{ method: string, url: string, auth: string | undefined, type: string | undefined, body: string }> = []
  const server = await startServer('127.0.0.1', (req, res, url) => {
    void readBody(req).then((body) => {
      seen.push({ method: req.method!, url: url.pathname + url.search, auth: req.headers.authorization, type: req.headers['content-type'], body })
      if (url.pathname.endsWith('/broken')) { res.writeHead(500); res.end('down'); return }
      if (url.pathname.endsWith('/missing')) { res.writeHead(404, { 'content-type': 'application/json' }); res.end('{"found":false}'); return }
      if (url.pathname.endsWith('/garbled')) { res.writeHead(200); res.end('<html>'); return }
      if (url.pathname.endsWith('/elsewhere')) { res.writeHead(302, { location: 'http://10.255.255.1/' }); res.end(); return }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ ok: true }))
    })
  })
  t.teardown(server.close)
  const upstreams = new Upstreams(upstreamConfigFromEnv({
    CMS_UPSTREAM_RANK_TRACKER_URL: `${server.origin}/v2`,
    CMS_UPSTREAM_RANK_TRACKER_TOKEN: 'tok-123'
  }))
  const client = upstreams.get('rank-tracker')
  t.equal(client.baseUrl, `${server.origin}/v2/`)
  t.equal(upstreams.get('rank-tracker'), client, 'one client per upstream')

  const res = await client.request('/keywords', { json: { keyword: 'cms' }, query: { page: 2 } })
  t.equal(res.status, 200)
  t.same(res.json(), { ok: true })
  t.same(seen.at(-1), { method: 'POST', url: '/v2/keywords?page=2', auth: 'Bearer tok-123', type: 'application/json', body: '{"keyword":"cms"}' })
  await client.request('keywords/7', { method: 'DELETE' })
  t.same([seen.at(-1)!.method, seen.at(-1)!.url], ['DELETE', '/v2/keywords/7'])

  const missing = await client.request('missing', { accept: [404] })
  t.same([missing.status, missing.json()], [404, { found: false }], 'a status the caller accepts is answered as it is')

  const broken = await restError(client.request('broken'))
  t.same([broken.status, broken.code, broken.data.upstream_status], [502, 'rest_upstream_error', 500])
  t.notMatch(broken.message, /tok-123/, 'the token is never in an error')
  const garbled = await client.request('garbled')
  const unreadable = await restError(async () => garbled.json())
  t.same([unreadable.status, unreadable.code], [502, 'rest_upstream_error'])
  const redirected = await restError(client.request('elsewhere'))
  t.same([redirected.status, redirected.code], [502, 'rest_upstream_error'], 'a redirect to another private address is refused')
  t.match(redirected.message, /non-public/)

  const before = seen.length
  for (const path of ['http://10.0.0.1/x', 'https:10.0.0.1', '../outside', 'a/../../outside', '%2e%2e/outside']) {
    const err = await restError(client.request(path))
    t.same([err.status, err.code], [400, 'rest_invalid_path'], path)
  }
  t.equal(seen.length, before, 'paths leaving the base URL are refused without a request')
})

t.test('a refused connection is a 502, a hung upstream a 504 within its timeout', async (t) => {
  // A port nothing listens on, and no other test can take meanwhile (one from listen(0), closed, could be
  // given to another process's socket before the request).
  const closedPort = await freePort()
  const hung = await startServer('127.0.0.1', () => { /* never answers */ })
  t.teardown(hung.close)
  const upstreams = new Upstreams(upstreamConfigFromEnv({
    CMS_UPSTREAM_GONE_URL: `http://127.0.0.1:${closedPort}/`,
    CMS_UPSTREAM_SLOW_URL: hung.origin,
    CMS_UPSTREAM_SLOW_TIMEOUT_MS: '300'
  }))
  const refused = await restError(upstreams.get('gone').request('x'))
  t.same([refused.status, refused.code], [502, 'rest_upstream_error'])
  const started = Date.now()
  const slow = await restError(upstreams.get('slow').request('x'))
  const took = Date.now() - started
  t.same([slow.status, slow.code], [504, 'rest_upstream_timeout'])
  // A timer must have fired (load only makes it later); the server never answers, so any answer is the timeout's.
  t.ok(took >= 250, `answered after ${took} ms`)
})
