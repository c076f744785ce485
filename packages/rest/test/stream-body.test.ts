/**
 * Endpoints that declare `streamBody`: the kernel leaves the body unread
 * for the handler (raw bytes, or multipart parts), checks the permission
 * first, refuses a body announced or found longer than the limit with the
 * endpoint's error, and other routes keep their parsed bodies.
 */
import t from 'tap'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { check, endpoint, everyone, who, kernelServerOptions, RestError, restKernel, route, type Principal } from '../src/index.js'

const writer: Principal = { id: 3, can: (cap) => cap === 'upload' }

t.test('streamed bodies', async (t) => {
  const app = Fastify(kernelServerOptions({ bodyLimit: 1024 }))
  let reads = 0
  await app.register(restKernel, {
    namespaces: [{
      name: 'up/v1',
      routes: [route({
        namespace: 'up/v1',
        path: '/up/v1/files',
        endpoints: [
          endpoint({
            methods: ['POST'],
            args: { note: Type.Optional(Type.String()) },
            streamBody: { maxBytes: () => 4096, tooLarge: () => new RestError('too_big', 'Too big.', 413) },
            permission: check((req) => req.user.can('upload') ? true : new RestError('no', 'No.', req.user.id === 0 ? 401 : 403), who.everyone('a test route (not probed)')),
            handler: async (req) => {
              reads++
              const body = req.body!
              if (body.multipart) {
                const seen: Array<Record<string, unknown>> = []
                for await (const part of body.parts()) {
                  if (part.kind === 'field') seen.push({ field: part.name, value: part.value })
                  else {
                    let n = 0
                    for await (const chunk of part.stream) n += (chunk as Buffer).length
                    seen.push({ file: part.filename, bytes: n })
                  }
                }
                return { multipart: seen, note: req.params.note ?? null }
              }
              let n = 0
              for await (const chunk of body.bytes()) n += (chunk as Buffer).length
              return { type: body.contentType, bytes: n, note: req.params.note ?? null }
            }
          }),
          endpoint({ methods: ['PUT'], args: { note: Type.String() }, permission: everyone, handler: (req) => ({ note: req.params.note }) })
        ]
      })]
    }],
    authenticate: async (req) => req.headers.authorization === 'writer' ? writer : { id: 0, can: () => false }
  })
  t.teardown(() => app.close())
  const post = async (payload: Buffer | string, headers: Record<string, string>, url = '/cms-json/up/v1/files') => {
    const res = await app.inject({ method: 'POST', url, headers, payload })
    return { status: res.statusCode, body: JSON.parse(res.body) }
  }

  const raw = await post(Buffer.alloc(3000, 1), { authorization: 'writer', 'content-type': 'image/png' }, '/cms-json/up/v1/files?note=hi')
  t.same(raw, { status: 200, body: { type: 'image/png', bytes: 3000, note: 'hi' } }, 'past the usual body limit, within its own')

  const form = new FormData()
  form.append('note', 'x')
  form.append('file', new Blob([new Uint8Array(2000)]), 'a.bin')
  const encoded = new Response(form)
  const parts = await post(Buffer.from(await encoded.arrayBuffer()), { authorization: 'writer', 'content-type': encoded.headers.get('content-type')! })
  t.same(parts.body.multipart, [{ field: 'note', value: 'x' }, { file: 'a.bin', bytes: 2000 }])

  const before = reads
  const anon = await post(Buffer.alloc(10), { 'content-type': 'image/png' })
  t.equal(anon.status, 401)
  t.equal(reads, before, 'the permission is checked before the handler reads')

  const announced = await post(Buffer.alloc(5000), { authorization: 'writer', 'content-type': 'image/png' })
  t.same(announced, { status: 413, body: { code: 'too_big', message: 'Too big.', data: { status: 413 } } })
  t.equal(reads, before, 'an announced length over the limit is refused before the handler')

  // Without a length announced (chunked), the limit holds as the bytes come, raw or multipart.
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const chunked = async (body: Buffer, type: string): Promise<{ status: number, code: string }> => {
    const res = await fetch(`${base}/cms-json/up/v1/files`, {
      method: 'POST',
      headers: { authorization: 'writer', 'content-type': type },
      body: new ReadableStream({ start (c) { c.enqueue(new Uint8Array(body)); c.close() } }),
      duplex: 'half'
    } as RequestInit)
    return { status: res.status, code: ((await res.json()) as { code: string }).code }
  }
  t.same(await chunked(Buffer.alloc(5000, 2), 'image/png'), { status: 413, code: 'too_big' }, 'raw, chunked')
  const bigForm = new FormData()
  bigForm.append('file', new Blob([new Uint8Array(4097)]), 'b.bin')
  const bigEncoded = new Response(bigForm)
  t.same(await chunked(Buffer.from(await bigEncoded.arrayBuffer()), bigEncoded.headers.get('content-type')!), { status: 413, code: 'too_big' }, 'multipart, chunked')
  const fine = await chunked(Buffer.alloc(4096, 2), 'image/png')
  t.equal(fine.status, 200, 'the limit itself is accepted')

  const put = await app.inject({ method: 'PUT', url: '/cms-json/up/v1/files', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ note: 'parsed' }) })
  t.same(JSON.parse(put.body), { note: 'parsed' }, 'other methods of the route keep their parsed bodies')
})
