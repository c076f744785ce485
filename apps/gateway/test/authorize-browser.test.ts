/**
 * The application authorization flow in a real browser (Debian's Chromium
 * driven by playwright-core): the gateway listens on a real port, a local
 * HTTP server plays the application that receives the credentials, and the
 * credentials are then used against the API. Then the reject flow, and the
 * API reference page (/docs/) drawn without a console error, an operation's
 * examples shown.
 *
 * Chromium must be installed (`apt-get install -y chromium`; `.ci/run` does
 * it). Where it is missing the test is skipped with the reason, except under
 * CI=true, where a missing browser fails, so CI cannot pass without running it.
 */
import { existsSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { chromium, type Browser } from 'playwright-core'
import { createUser } from '@cms/core'
import { gatewayApp, listenLoopback } from './helpers.js'

const CHROMIUM = '/usr/bin/chromium'
const APP_ID = '3f2b8c4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f'

/** The "application": records each request to /callback and answers with a small page. */
async function applicationServer (): Promise<{ server: Server, url: string, received: URL[] }> {
  const received: URL[] = []
  const server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://application.invalid')
    if (url.pathname === '/callback') received.push(url)
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end('<!DOCTYPE html><html lang="en"><title>App</title><h1>Back in the application</h1></html>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received }
}

t.test('authorize an application in a browser', async (t) => {
  if (!existsSync(CHROMIUM)) {
    const reason = `Chromium is not installed at ${CHROMIUM}: install it with "apt-get install -y chromium" (this test never downloads a browser)`
    if (process.env.CI === 'true') t.fail(reason)
    else t.pass('the browser flow', { skip: reason })
    return
  }

  // No base URL: links name the loopback address the browser uses.
  const { app, store, close } = await gatewayApp({ env: { CMS_BASE_URL: '' } })
  t.teardown(close)
  const site = await listenLoopback(app)
  const alice = await createUser(store, { login: 'alice', email: 'alice@example.com', roles: ['editor'], password: 'browser-test-password' })

  const application = await applicationServer()
  t.teardown(() => new Promise<void>((resolve) => application.server.close(() => resolve())))

  let browser: Browser
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync']
    })
  } catch (err) {
    t.fail(`Chromium at ${CHROMIUM} could not be started: ${(err as Error).message.split('\n')[0]}`)
    return
  }
  t.teardown(() => browser.close())
  const context = await browser.newContext()
  const page = await context.newPage()
  page.setDefaultTimeout(15_000)

  // Set by the approve flow, used by the reject flow to count passwords.
  let approvedAuth = ''
  const authorize = (params: Record<string, string>): string =>
    `${site}/cms-admin/authorize-application.php?${new URLSearchParams(params).toString()}`

  t.test('sign in, approve, arrive at the application with working credentials', async (t) => {
    const callback = `${application.url}/callback?state=xyz`
    await page.goto(authorize({ app_name: 'Browser App', app_id: APP_ID, success_url: callback }))
    t.match(page.url(), `${site}/cms-admin/login?redirect_to=`, 'sent to the sign-in page first')
    t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Sign in')

    await page.getByLabel('Username or email address').fill('alice')
    await page.getByLabel('Password').fill('wrong password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForLoadState()
    t.match(await page.getByRole('alert').textContent(), 'The username or password is incorrect.')

    await page.getByLabel('Password').fill('browser-test-password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${site}/cms-admin/authorize-application.php?**`)
    t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Authorize Application')
    t.equal(await page.getByLabel('New application password name').inputValue(), 'Browser App')
    const cookies = await context.cookies(`${site}/cms-admin/`)
    const session = cookies.find((c) => c.name === 'cms_session')
    t.ok(session?.httpOnly, 'the session cookie is HttpOnly')
    t.equal(session?.sameSite, 'Lax')

    await page.getByRole('button', { name: 'Yes, I approve of this connection' }).click()
    await page.waitForURL(`${application.url}/callback?**`)
    t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Back in the application')

    const got = application.received.at(-1)!
    t.equal(got.pathname, '/callback')
    t.equal(got.searchParams.get('state'), 'xyz')
    t.equal(got.searchParams.get('site_url'), site)
    t.equal(got.searchParams.get('user_login'), 'alice')
    const password = got.searchParams.get('password') ?? ''
    t.match(password, /^[A-Za-z0-9]{24}$/)

    const auth = `Basic ${Buffer.from(`alice:${password}`).toString('base64')}`
    approvedAuth = auth
    const me = await fetch(`${site}/cms-json/cms/v2/users/me?context=edit`, { headers: { authorization: auth } })
    t.equal(me.status, 200, 'the credentials work against the API')
    const body = await me.json() as { id: number, username: string }
    t.equal(body.id, alice.id)
    t.equal(body.username, 'alice')
    const intro = await fetch(`${site}/index.php?rest_route=/cms/v2/users/me/application-passwords/introspect`, { headers: { authorization: auth } })
    const item = await intro.json() as { name: string, app_id: string }
    t.equal(item.name, 'Browser App')
    t.equal(item.app_id, APP_ID)
  })

  t.test('reject: back to the application with success=false and nothing created', async (t) => {
    const list = async (): Promise<number> => {
      const res = await fetch(`${site}/cms-json/cms/v2/users/${alice.id}/application-passwords`, { headers: { authorization: approvedAuth } })
      return (await res.json() as unknown[]).length
    }
    const count = await list()
    t.equal(count, 1)
    await page.goto(authorize({ app_name: 'Unwanted', success_url: `${application.url}/callback` }))
    t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Authorize Application', 'still signed in')
    await page.getByRole('button', { name: 'No, I do not approve of this connection' }).click()
    await page.waitForURL(`${application.url}/callback?**`)
    const got = application.received.at(-1)!
    t.equal(got.searchParams.get('success'), 'false')
    t.equal(got.searchParams.get('password'), null, 'no credentials on rejection')
    t.equal(await list(), count, 'no password was created')
  })

  t.test('the API reference (/docs/) renders without a console error, under its own CSP', async (t) => {
    const docs = await context.newPage()
    t.teardown(() => docs.close())
    const problems: string[] = []
    docs.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`) })
    docs.on('pageerror', (err) => { problems.push(`page error: ${err.message}`) })
    const res = await docs.goto(`${site}/docs/`)
    t.equal(res?.status(), 200)
    const csp = (await res!.allHeaders())['content-security-policy'] ?? ''
    t.match(csp, /script-src 'self'/, 'scripts from the page\'s own origin only')
    t.notMatch(csp, /style-src [^;]*'unsafe-inline'/, 'no inline style elements')
    // The document is loaded and its operations drawn (swagger-ui sets style attributes while it draws them).
    await docs.waitForSelector('.opblock', { timeout: 60_000 })
    await docs.locator('.opblock-summary').first().click()
    await docs.waitForSelector('.opblock-body', { timeout: 30_000 })
    // An operation with examples (openapi-complete.test.ts checks them): its request body and answer drawn from them.
    const create = docs.locator('.opblock-post', { has: docs.locator('[data-path="/cms-json/cms/v2/posts"]') })
    await create.locator('.opblock-summary').click()
    const body = create.locator('.opblock-body')
    await body.waitFor({ timeout: 30_000 })
    const shown = await body.innerText()
    t.match(shown, /"content": "<p>My first post\.<\/p>"/, 'the example request body is shown')
    t.match(shown, /"generated_slug": "hello-world"/, 'the example answer is shown')
    t.same(problems, [], 'no console errors or warnings')
  })
})
