/**
 * The bare Fastify twin: serves captured responses, byte for byte with the
 * same headers, from one route. It is the ceiling a service route is
 * compared with.
 */
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const [file, port] = process.argv.slice(2)
const captured = JSON.parse(readFileSync(file!, 'utf8')) as Record<string, { status: number, headers: Record<string, string>, body: string }>
const responses = new Map(Object.entries(captured).map(([url, r]) => [url, { ...r, bytes: Buffer.from(r.body, 'base64') }]))

const app = Fastify({ logger: false })
app.get('/__ready', async () => 'ok')
app.get('/*', (request, reply) => {
  const r = responses.get(request.url)
  if (r === undefined) return reply.code(404).send()
  return reply.code(r.status).headers(r.headers).send(r.bytes)
})
app.get('/', (request, reply) => {
  const r = responses.get(request.url)
  if (r === undefined) return reply.code(404).send()
  return reply.code(r.status).headers(r.headers).send(r.bytes)
})
await app.listen({ port: Number(port), host: '127.0.0.1' })
