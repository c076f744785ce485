/**
 * The SSRF-guarded client against real HTTP servers on loopback. Refusals
 * must happen before any socket is created: every test of a refused
 * destination counts the sockets the process opened meanwhile (Node's
 * `net.client.socket` channel and undici's `beforeConnect`) and the
 * connections the loopback servers saw. Private, link-local and metadata
 * addresses are only ever named, never contacted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { freePort } from '@cms/store/testing'
import { socketsOpenedDuring, startServer } from './fixtures/loopback.js'
import { classifyAddress, createOutboundClient, OutboundError, parseAllowList, parseIp, restErrorOf } from '../src/platform/outbound/index.js'

async function failure (p: Promise<unknown>): Promise<OutboundError> {
  try {
    await p
  } catch (err) {
    if (err instanceof OutboundError) return err
    throw err
  }
  throw new Error('expected the fetch to fail')
}

const ok = (body: string) => (_req: IncomingMessage, res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'text/plain' })
  res.end(body)
}

t.test('address classes', async (t) => {
  const cases: Array<[string, string]> = [
    ['127.0.0.1', 'non-public'], ['127.8.9.10', 'non-public'], ['10.0.0.1', 'non-public'],
    ['172.16.5.4', 'non-public'], ['172.32.0.1', 'public'], ['192.168.1.1', 'non-public'],
    ['100.64.0.1', 'non-public'], ['0.0.0.0', 'non-public'], ['224.0.0.1', 'non-public'],
    ['255.255.255.255', 'non-public'], ['169.254.1.1', 'non-public'], ['169.254.169.254', 'metadata'],
    ['168.63.129.16', 'metadata'], ['93.184.215.14', 'public'],
    ['::1', 'non-public'], ['::', 'non-public'], ['fe80::1', 'non-public'], ['fc00::1', 'non-public'],
    ['fd12:3456::1', 'non-public'], ['ff02::1', 'non-public'], ['fd00:ec2::254', 'metadata'],
    ['::ffff:127.0.0.1', 'non-public'], ['::ffff:7f00:1', 'non-public'], ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:93.184.215.14', 'public'], ['64:ff9b::a00:1', 'non-public'], ['2002:a00:1::', 'non-public'],
    ['2002:5db8:d70e::1', 'public'], ['2001:db8::1', 'non-public'], ['2606:4700:4700::1111', 'public'],
    ['[::1]', 'non-public']
  ]
  for (const [ip, expected] of cases) t.equal(classifyAddress(parseIp(ip)!), expected, ip)
  t.equal(parseIp('localhost'), null, 'a name is not an address')
  t.equal(parseIp('1.2.3'), null)
})

t.test('every IPv6 embedding of a private IPv4 address is refused (issue 27)', async (t) => {
  // Each form once with a private, a loopback and a metadata address inside, and once with a
  // public one where the form itself is routable (so the rule is "judge what it carries").
  const cases: Array<[string, string, string]> = [
    ['IPv4-mapped', '::ffff:10.0.0.1', 'non-public'],
    ['IPv4-mapped, hex words', '::ffff:c0a8:101', 'non-public'],
    ['IPv4-mapped, metadata', '::ffff:169.254.169.254', 'metadata'],
    ['IPv4-translated (SIIT)', '::ffff:0:10.0.0.1', 'non-public'],
    ['IPv4-translated, loopback', '::ffff:0:127.0.0.1', 'non-public'],
    ['IPv4-translated, hex words', '::ffff:0:7f00:1', 'non-public'],
    ['IPv4-translated, metadata', '::ffff:0:169.254.169.254', 'metadata'],
    ['IPv4-translated, public', '::ffff:0:93.184.215.14', 'public'],
    ['IPv4-compatible', '::10.0.0.1', 'non-public'],
    ['IPv4-compatible, loopback', '::127.0.0.1', 'non-public'],
    ['IPv4-compatible, public (deprecated, never routed)', '::93.184.215.14', 'non-public'],
    ['NAT64 well-known', '64:ff9b::192.168.0.1', 'non-public'],
    ['NAT64 well-known, loopback', '64:ff9b::7f00:1', 'non-public'],
    ['NAT64 well-known, metadata', '64:ff9b::a9fe:a9fe', 'metadata'],
    ['NAT64 well-known, public', '64:ff9b::93.184.215.14', 'public'],
    ['NAT64 local-use', '64:ff9b:1:a00:1::', 'non-public'],
    ['NAT64 local-use, /96', '64:ff9b:1::10.0.0.1', 'non-public'],
    ['6to4', '2002:7f00:1::1', 'non-public'],
    ['6to4, private', '2002:c0a8:101::', 'non-public'],
    ['6to4, metadata', '2002:a9fe:a9fe::1', 'metadata'],
    ['6to4, public', '2002:5db8:d70e::1', 'public'],
    ['Teredo, private server', '2001:0:a00:1::1', 'non-public'],
    ['Teredo, loopback client (inverted)', '2001:0:5db8:d70e:0:0:80ff:fffe', 'non-public'],
    ['Teredo, metadata client (inverted)', '2001:0:5db8:d70e:0:0:5601:5601', 'metadata'],
    ['Teredo, public ends (the prefix is refused anyway)', '2001:0:5db8:d70e::a247:28f1', 'non-public'],
    ['ISATAP under a public prefix', '2606:4700::5efe:10.0.0.1', 'non-public'],
    ['ISATAP, universal bit', '2606:4700::200:5efe:192.168.1.1', 'non-public'],
    ['ISATAP, metadata', '2606:4700::5efe:169.254.169.254', 'metadata'],
    ['ISATAP, public', '2606:4700::5efe:93.184.215.14', 'public']
  ]
  for (const [form, ip, expected] of cases) t.equal(classifyAddress(parseIp(ip)!), expected, `${form}: ${ip}`)

  const list = parseAllowList('127.0.0.1')
  t.ok(list.allowsAddress(parseIp('::ffff:0:127.0.0.1')!), 'an allowed address in the translated form stays allowed')
  t.notOk(list.allowsAddress(parseIp('::127.0.0.1')!), 'but not in the compatible form, which nothing routes')

  // And through the client: refused before any socket is opened.
  const client = createOutboundClient({ allow: '' })
  for (const ip of ['::ffff:0:127.0.0.1', '::ffff:0:a9fe:a9fe', '64:ff9b::a00:1', '2002:a00:1::1', '::7f00:1', '2001:0:5db8:d70e::80ff:fffe']) {
    let error: OutboundError | undefined
    const sockets = await socketsOpenedDuring(async () => { error = await failure(client.fetch(`http://[${ip}]/`)) })
    t.equal(error?.failure, 'blocked', `http://[${ip}]/ is refused`)
    t.equal(sockets, 0, `${ip}: no socket was opened`)
  }
})

t.test('the allow-list setting', async (t) => {
  const list = parseAllowList(' 127.0.0.1, 10.1.0.0/16 ,intranet.example,*.corp.example, fd00::/8, 169.254.0.0/16 ')
  t.ok(list.allowsAddress(parseIp('127.0.0.1')!))
  t.notOk(list.allowsAddress(parseIp('127.0.0.2')!))
  t.ok(list.allowsAddress(parseIp('::ffff:127.0.0.1')!), 'the mapped form of an allowed address')
  t.ok(list.allowsAddress(parseIp('10.1.200.3')!))
  t.notOk(list.allowsAddress(parseIp('10.2.0.1')!))
  t.ok(list.allowsAddress(parseIp('fd00::5')!))
  t.ok(list.allowsAddress(parseIp('169.254.3.3')!))
  t.notOk(list.allowsAddress(parseIp('169.254.169.254')!), 'metadata needs to be named one by one')
  t.ok(parseAllowList('169.254.169.254').allowsAddress(parseIp('169.254.169.254')!))
  t.ok(list.allowsHost('intranet.example'))
  t.ok(list.allowsHost('INTRANET.example.'))
  t.ok(list.allowsHost('a.b.corp.example'))
  t.notOk(list.allowsHost('corp.example.evil'))
  t.notOk(list.allowsHost('notintranet.example'))
  t.same(parseAllowList('').entries, [])
  t.same(parseAllowList(undefined).entries, [])
  for (const bad of ['10.0.0.0/33', 'http://x', '1.2.3.4/a', '::1/129', 'a b', '*']) {
    t.throws(() => parseAllowList(bad), /CMS_OUTBOUND_ALLOW/, `"${bad}" is refused at start`)
  }
})

t.test('refuses non-public destinations before connecting', async (t) => {
  const v4 = await startServer('127.0.0.1', ok('secret'))
  const v6 = await startServer('::1', ok('secret'))
  t.teardown(async () => { await v4.close(); await v6.close() })
  const client = createOutboundClient({ allow: '' })
  const targets: Array<[string, RegExp]> = [
    [`http://127.0.0.1:${v4.port}/`, /non-public address/],
    ['http://10.0.0.1/', /non-public address/],
    ['http://169.254.169.254/latest/meta-data/', /metadata address/],
    [`http://[::1]:${v6.port}/`, /non-public address/],
    [`http://localhost:${v4.port}/`, /the host localhost resolves to a non-public address/],
    [`http://LOCALHOST.:${v4.port}/`, /the host localhost resolves to/],
    [`http://[::ffff:127.0.0.1]:${v4.port}/`, /non-public address/],
    [`http://2130706433:${v4.port}/`, /non-public address/],
    [`http://0x7f.1:${v4.port}/`, /non-public address/],
    ['http://0/', /non-public address/],
    ['http://[fe80::1]/', /non-public address/],
    ['https://192.168.0.1/', /non-public address/],
    ['file:///etc/passwd', /scheme file: is not allowed/],
    ['ftp://127.0.0.1/', /scheme ftp: is not allowed/],
    ['gopher://example.com/', /scheme gopher: is not allowed/],
    ['http://user:pw@93.184.215.14/', /credentials/],
    ['not a url', /cannot be parsed/]
  ]
  for (const [url, reason] of targets) {
    let error: OutboundError | undefined
    const sockets = await socketsOpenedDuring(async () => { error = await failure(client.fetch(url)) })
    t.equal(error?.failure, 'blocked', `${url} is refused`)
    t.match(error?.message, reason, `${url}: ${error?.message}`)
    t.equal(error?.hop, 0)
    t.equal(sockets, 0, `${url}: no socket was opened`)
    t.equal(restErrorOf(error!).status, 400)
    t.equal(restErrorOf(error!).code, 'rest_url_not_allowed')
  }
  const checked = await failure(client.check('http://10.0.0.1/'))
  t.equal(checked.failure, 'blocked', 'check() refuses the same way without fetching')
  t.equal(v4.connections, 0, 'the IPv4 loopback server saw no connection')
  t.equal(v6.connections, 0, 'the IPv6 loopback server saw no connection')
})

t.test('allow-listed loopback is fetched, within size and time limits', async (t) => {
  const server = await startServer('127.0.0.1', (req, res) => {
    if (req.url === '/big') {
      res.writeHead(200, { 'content-length': String(2048) })
      res.end('x'.repeat(2048))
    } else if (req.url === '/stream') {
      // No content-length and never ended: the limit must hold while reading.
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write('y'.repeat(4096))
    } else if (req.url === '/slow') {
      // Never answers.
    } else {
      res.writeHead(200, { 'content-type': 'application/json', 'x-test': 'yes' })
      res.end(JSON.stringify({ hello: req.headers['user-agent'] }))
    }
  })
  t.teardown(() => server.close())
  // A minute for the answers (a loaded machine can stall seconds); the silent server's fetch alone has a short limit.
  const client = createOutboundClient({ allow: '127.0.0.1', maxBytes: 1024, timeoutMs: 60_000 })

  const res = await client.fetch(`${server.origin}/ok`)
  t.equal(res.status, 200)
  t.equal(res.headers['x-test'], 'yes')
  t.match(JSON.parse(res.text()), { hello: /cms-service/ })
  t.equal(res.url, `${server.origin}/ok`)
  await client.check(`${server.origin}/ok`)

  const big = await failure(client.fetch(`${server.origin}/big`))
  t.equal(big.failure, 'too_large', 'a declared length over the limit')
  const stream = await failure(client.fetch(`${server.origin}/stream`))
  t.equal(stream.failure, 'too_large', 'an undeclared body over the limit')
  t.equal((await client.fetch(`${server.origin}/big`, { maxBytes: 4096 })).body.length, 2048, 'a per-fetch limit')

  // The failure names the time limit (its time is not asserted: load stretches it; tap's timeout catches a hang).
  const slow = await failure(client.fetch(`${server.origin}/slow`, { timeoutMs: 1500 }))
  t.equal(slow.failure, 'timeout', 'gave up at the time limit')
  t.equal(restErrorOf(slow).status, 502)
  t.equal(restErrorOf(slow).code, 'rest_upstream_error')

  // A port nothing listens on, and no other test can take meanwhile (one from listen(0), closed, could be given to
  // another process's socket before the fetch).
  const port = await freePort()
  const refused = await failure(client.fetch(`http://127.0.0.1:${port}/`))
  t.equal(refused.failure, 'network', 'a closed port is a network failure')
})

t.test('a body written to a file as it arrives', async (t) => {
  const payload = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251))
  const server = await startServer('127.0.0.1', (req, res) => {
    if (req.url === '/file') {
      // In pieces, without a declared length: written as they come.
      res.writeHead(200, { 'content-type': 'application/zip' })
      for (let i = 0; i < payload.length; i += 65_536) res.write(payload.subarray(i, i + 65_536))
      res.end()
    } else if (req.url === '/moved') {
      res.writeHead(302, { location: '/file' })
      res.end()
    } else if (req.url === '/endless') {
      res.writeHead(200)
      res.write(Buffer.alloc(200_000))
    } else if (req.url === '/cut') {
      // Announces more than it sends, then drops the connection.
      res.writeHead(200, { 'content-length': '100000' })
      res.write(Buffer.alloc(1000), () => { res.socket?.destroy() })
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' })
      res.end('no such package')
    }
  })
  t.teardown(() => server.close())
  const dir = await mkdtemp(join(tmpdir(), 'cms-outbound-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  // No fetch here waits for a time limit: a minute, which only a hang reaches.
  const client = createOutboundClient({ allow: '127.0.0.1', maxBytes: 100_000, timeoutMs: 60_000 })

  const file = join(dir, 'a.zip')
  const res = await client.fetch(`${server.origin}/moved`, { toFile: file, maxBytes: 1_000_000 })
  t.same([res.status, res.bytes, res.body.length, res.url], [200, payload.length, 0, `${server.origin}/file`], 'after a redirect; nothing kept in memory')
  t.ok((await readFile(file)).equals(payload), 'the file holds the body byte for byte')
  t.equal((await stat(file)).mode & 0o777, 0o600, 'readable by the service only')

  const missing = await client.fetch(`${server.origin}/nothing`, { toFile: join(dir, 'b.zip') })
  t.same([missing.status, missing.text()], [404, 'no such package'], 'another answer is read as usual')
  t.notOk(existsSync(join(dir, 'b.zip')), 'and writes no file')

  t.equal((await failure(client.fetch(`${server.origin}/endless`, { toFile: join(dir, 'c.zip') }))).failure, 'too_large')
  t.notOk(existsSync(join(dir, 'c.zip')), 'a body over the limit leaves no file')
  t.equal((await failure(client.fetch(`${server.origin}/cut`, { toFile: join(dir, 'd.zip') }))).failure, 'network')
  t.notOk(existsSync(join(dir, 'd.zip')), 'nor does a cut connection')

  const taken = join(dir, 'taken.zip')
  await writeFile(taken, 'kept')
  await t.rejects(client.fetch(`${server.origin}/file`, { toFile: taken, maxBytes: 1_000_000 }), { code: 'EEXIST' }, 'an existing file is a local error, not the service\'s')
  t.equal(await readFile(taken, 'utf8'), 'kept', 'and is left as it was')
})

t.test('redirects are checked hop by hop', async (t) => {
  // The target on 127.0.0.1 is not allow-listed; only the first server (127.0.0.2) is.
  const target = await startServer('127.0.0.1', ok('internal'))
  const target6 = await startServer('::1', ok('internal'))
  const redirector = await startServer('127.0.0.2', (req, res) => {
    const to: Record<string, string> = {
      '/to-v4': `http://127.0.0.1:${target.port}/secret`,
      '/to-localhost': `http://localhost:${target.port}/secret`,
      '/to-v6': `http://[::1]:${target6.port}/secret`,
      '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
      '/to-file': 'file:///etc/passwd',
      '/relative': '/final',
      '/loop': '/loop'
    }
    if (req.url === '/final') {
      res.writeHead(200)
      res.end('final')
      return
    }
    res.writeHead(302, { location: to[req.url ?? ''] ?? '/final' })
    res.end()
  })
  t.teardown(async () => { await target.close(); await target6.close(); await redirector.close() })
  const client = createOutboundClient({ allow: '127.0.0.2', maxRedirects: 3 })

  for (const path of ['/to-v4', '/to-localhost', '/to-v6', '/to-metadata', '/to-file']) {
    let error: OutboundError | undefined
    const before = redirector.connections
    const sockets = await socketsOpenedDuring(async () => { error = await failure(client.fetch(`${redirector.origin}${path}`)) })
    t.equal(error?.failure, 'blocked', `${path}: the redirect is refused (${error?.message})`)
    t.equal(error?.hop, 1)
    t.equal(redirector.connections - before, 1, `${path}: one connection, to the allowed server`)
    t.equal(sockets, 2, `${path}: only the first hop opened a socket (net and undici each report it once)`)
    t.equal(restErrorOf(error!).status, 502, 'a refused redirect is the upstream\'s fault')
  }
  t.equal(target.connections, 0, 'the IPv4 target saw no connection')
  t.equal(target6.connections, 0, 'the IPv6 target saw no connection')

  const followed = await client.fetch(`${redirector.origin}/relative`)
  t.equal(followed.status, 200)
  t.equal(followed.text(), 'final')
  t.equal(followed.url, `${redirector.origin}/final`)

  const loop = await failure(client.fetch(`${redirector.origin}/loop`))
  t.equal(loop.failure, 'redirects')
})

t.test('the checked address is the one connected to (no second lookup)', async (t) => {
  const allowed = await startServer('127.0.0.2', ok('pinned'))
  // Same port on the address a second lookup would give: a rebinding would reach it.
  const rebound = await startServer('127.0.0.1', ok('rebound'), allowed.port)
  t.teardown(async () => { await allowed.close(); await rebound.close() })
  const answers = ['127.0.0.2', '127.0.0.1']
  let lookups = 0
  const client = createOutboundClient({
    allow: '127.0.0.2',
    resolve: async () => [{ address: answers[Math.min(lookups++, 1)]!, family: 4 }]
  })
  const res = await client.fetch(`http://rebind.test:${allowed.port}/`)
  t.equal(res.text(), 'pinned', 'answered by the checked address')
  t.equal(lookups, 1, 'the name was resolved once')
  t.equal(allowed.requests.length, 1)
  t.equal(rebound.connections, 0)

  const mixed = createOutboundClient({
    allow: '127.0.0.2',
    resolve: async () => [{ address: '127.0.0.2', family: 4 }, { address: '10.0.0.1', family: 4 }]
  })
  let error: OutboundError | undefined
  const sockets = await socketsOpenedDuring(async () => { error = await failure(mixed.fetch(`http://mixed.test:${allowed.port}/`)) })
  t.equal(error?.failure, 'blocked', 'one non-public answer refuses the host')
  t.equal(sockets, 0)

  const named = createOutboundClient({ allow: 'intranet.test', resolve: async () => [{ address: '127.0.0.2', family: 4 }] })
  t.equal((await named.fetch(`http://intranet.test:${allowed.port}/`)).text(), 'pinned', 'a host named in the allow-list')
  const metadata = createOutboundClient({ allow: 'meta.test', resolve: async () => [{ address: '169.254.169.254', family: 4 }] })
  t.equal((await failure(metadata.fetch('http://meta.test/'))).failure, 'blocked', 'a named host still cannot reach metadata')

  const unresolved = createOutboundClient({ resolve: async () => { throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' }) } })
  const dnsError = await failure(unresolved.fetch('http://nowhere.test/'))
  t.equal(dnsError.failure, 'dns')
  const empty = createOutboundClient({ resolve: async () => [] })
  t.equal((await failure(empty.fetch('http://nowhere.test/'))).failure, 'dns')
})
