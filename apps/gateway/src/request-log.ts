/**
 * The service's log: pretty lines on a terminal (pino-pretty, in this
 * process), JSON lines otherwise; one line per request, when it is answered.
 */
import { createRequire } from 'node:module'
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import type { Settings } from './settings.js'

export function loggerOptions (settings: Settings, stdout: NodeJS.WriteStream = process.stdout): FastifyServerOptions['logger'] {
  return {
    level: settings.logLevel,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'password'], censor: '[redacted]' },
    ...(stdout.isTTY === true
      // Loaded only for a terminal: a service logging JSON never holds the formatter.
      ? { stream: (createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty'))({ sync: true, colorize: true, translateTime: 'HH:MM:ss', ignore: 'pid,hostname' }) }
      : {})
  }
}

/** Query parameters whose values are secrets (never logged). */
const SECRET = /pass|token|secret|nonce|key|auth|session|cookie/i

/** The request's URL as it may be logged: the values of secret-looking parameters replaced. */
export function loggableUrl (url: string): string {
  const q = url.indexOf('?')
  if (q === -1 || !SECRET.test(url.slice(q))) return url
  const pairs = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=')
    let name = eq === -1 ? pair : pair.slice(0, eq)
    try { name = decodeURIComponent(name) } catch {}
    return eq !== -1 && SECRET.test(name) ? `${pair.slice(0, eq)}=[redacted]` : pair
  })
  return `${url.slice(0, q)}?${pairs.join('&')}`
}

/** One line per request when it is answered, instead of Fastify's two (incoming, completed). */
export class RequestLog extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    const line = `${req.method} ${loggableUrl(req.url)} ${reply.statusCode} ${Math.round(reply.elapsedTime * 10) / 10} ms`
    if (error != null) reply.log.error({ err: error }, line)
    else reply.log.info(line)
  }
}
