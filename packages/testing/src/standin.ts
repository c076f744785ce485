/**
 * A local stand-in for an outside service (loopback only) that package tests
 * point an upstream at (`CMS_UPSTREAM_<NAME>_URL: s.url`): records what it
 * receives and answers per path (`answers['/api/token']`), else `answer`.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received { method: string, path: string, auth: string | undefined, body: any }
interface Answer { status: number, body: unknown }

export interface StandIn {
  url: string
  received: Received[]
  answer: Answer
  answers: Record<string, Answer>
  close: () => Promise<void>
}

export async function standIn (): Promise<StandIn> {
  const received: Received[] = []
  const answer: Answer = { status: 200, body: {} }
  const answers: Record<string, Answer> = {}
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      received.push({ method: req.method!, path: req.url!, auth: req.headers.authorization, body: text === '' ? null : JSON.parse(text) })
      const a = answers[req.url!.split('?')[0]!] ?? answer
      if (a.status === 204) {
        res.writeHead(204)
        res.end()
        return
      }
      res.writeHead(a.status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(a.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`,
    received,
    answer,
    answers,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => { resolve() }))
    }
  }
}
