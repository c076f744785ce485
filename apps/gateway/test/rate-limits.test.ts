/**
 * Rate limits as the gateway composes them: the settings (defaults on, each
 * checked at start), the client address behind a trusted proxy, health
 * probes never limited. The limits themselves: packages/core/test/rate-limits.test.ts.
 */
import t from 'tap'
import { RATE_LIMIT_DEFAULTS } from '@cms/core'
import { loadSettings } from '../src/settings.js'
import { gatewayApp } from './helpers.js'

t.test('settings: on by default, each value checked', async (t) => {
  t.same(loadSettings({}).rateLimits, RATE_LIMIT_DEFAULTS, 'the defaults, limits on')
  t.same(RATE_LIMIT_DEFAULTS, { enabled: true, read: 3000, write: 300, expensive: 60, windowMs: 60_000, authFailures: 20, authWindowMs: 900_000, syncMs: 1000 })
  const set = loadSettings({ CMS_RATE_LIMITS: 'off', CMS_RATE_LIMIT_READ: '0', CMS_RATE_LIMIT_WRITE: '10', CMS_RATE_LIMIT_EXPENSIVE: '2', CMS_RATE_LIMIT_WINDOW_MS: '5000', CMS_RATE_LIMIT_AUTH: '4', CMS_RATE_LIMIT_AUTH_WINDOW_MS: '60000', CMS_RATE_LIMIT_SYNC_MS: '250' }).rateLimits
  t.same(set, { enabled: false, read: 0, write: 10, expensive: 2, windowMs: 5000, authFailures: 4, authWindowMs: 60_000, syncMs: 250 })
  t.throws(() => loadSettings({ CMS_RATE_LIMITS: 'yes' }), { name: 'SettingError', message: /CMS_RATE_LIMITS.*on or off/ })
  t.throws(() => loadSettings({ CMS_RATE_LIMIT_READ: '-1' }), { name: 'SettingError', message: /CMS_RATE_LIMIT_READ/ })
  t.throws(() => loadSettings({ CMS_RATE_LIMIT_WINDOW_MS: '10' }), { name: 'SettingError', message: /CMS_RATE_LIMIT_WINDOW_MS.*at least 1000|CMS_RATE_LIMIT_WINDOW_MS.*from 1000/ })
})

t.test('behind a trusted proxy each client counts apart; probes are never limited', async (t) => {
  const { app, close } = await gatewayApp({ env: { CMS_RATE_LIMITS: 'on', CMS_RATE_LIMIT_READ: '2', CMS_TRUSTED_PROXIES: '10.0.0.1' } })
  t.teardown(close)
  const get = async (from: string, forwarded?: string, url = '/cms-json/cms/v2/types'): Promise<number> => (await app.inject({
    method: 'GET', url, remoteAddress: from, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded }
  })).statusCode

  t.same([await get('10.0.0.1', '203.0.113.1'), await get('10.0.0.1', '203.0.113.1'), await get('10.0.0.1', '203.0.113.1')], [200, 200, 429], 'one client through the proxy')
  t.equal(await get('10.0.0.1', '203.0.113.2'), 200, 'another client through the same proxy')
  t.same([await get('192.0.2.5', '203.0.113.3'), await get('192.0.2.5', '203.0.113.4'), await get('192.0.2.5', '203.0.113.5')], [200, 200, 429], 'an untrusted sender\'s X-Forwarded-For is ignored: its own address counts')
  for (let i = 0; i < 4; i++) t.equal(await get('192.0.2.5', undefined, '/healthz'), 200, `/healthz ${i + 1}`)
  const ready = await app.inject({ method: 'GET', url: '/readyz', remoteAddress: '192.0.2.5' })
  t.equal(ready.statusCode, 200)
  t.equal(ready.headers['ratelimit-limit'], undefined, 'no limit headers on probes')
})

t.test('the test apps run with limits off unless a test turns them on', async (t) => {
  const { app, close } = await gatewayApp()
  t.teardown(close)
  const res = await app.inject({ method: 'GET', url: '/cms-json/cms/v2/types' })
  t.equal(res.headers['ratelimit-limit'], undefined)
})
