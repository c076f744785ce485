import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { request } from 'undici'
const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir=/tmp/sec-prof3', '--import', 'tsx', 'test/harness/serve.ts'], { env: { ...process.env, CMS_DEPLOYMENT: 'A', CMS_TEST_DATABASE_URL: '', CMS_MAX_URL_LENGTH: '9000000' }, stdio: ['pipe', 'pipe', 'inherit'] })
const [line] = await once(createInterface({ input: child.stdout! }), 'line') as [string]
const { base, headers } = JSON.parse(line)
async function time (label: string, url: string) {
  const t = performance.now()
  const r = await request(base + url, { headers, headersTimeout: 120000, bodyTimeout: 120000 })
  const body = await r.body.text()
  console.log(label, r.statusCode, (performance.now() - t).toFixed(0), 'ms', body.length, body.slice(0, 100))
}
const MB = 1_000_000
const cases: Array<[string, string]> = [
  ['healthz', '/healthz?q=' + encodeURIComponent('<a '.repeat(MB / 3))],
  ['posts', '/cms-json/cms/v2/posts?q=' + encodeURIComponent('<a '.repeat(MB / 3))],
  ['index <a', '/cms-json/?context=' + encodeURIComponent('<a '.repeat(MB / 3))],
  ['oembed ns [', '/cms-json/oembed/1.0?namespace=' + encodeURIComponent('['.repeat(MB)) + '&context=' + encodeURIComponent('['.repeat(MB))],
  ['oembed embed', '/cms-json/oembed/1.0/embed?url=http://cms.test/?p=1&format=' + encodeURIComponent('[[gallery '.repeat(MB / 10)) + '&maxwidth=' + encodeURIComponent('[[gallery '.repeat(MB / 10))],
]
for (let i = 0; i < 3; i++) for (const [label, url] of cases) await time(label, url)
child.kill('SIGTERM'); await once(child, 'exit')
