/**
 * The embedded database shared with other processes of the same user: the
 * service that holds PGlite (a single-process database) answers PostgreSQL's
 * wire protocol on a Unix socket in its data directory, so the CLI, run
 * beside the service, opens it as it would a PostgreSQL server (`pg`) with
 * every command unchanged.
 *
 * - The socket (`<dataDir>/.s.PGSQL.5432`, the name PostgreSQL's clients
 *   look for in a socket directory) is made with mode 0600: only the user
 *   running the service may connect, as PostgreSQL's peer authentication
 *   would allow; no password is asked.
 * - PGlite has one session. A client's messages run under PGlite's
 *   transaction lock, held from the client's first message until PGlite
 *   answers ReadyForQuery with status idle: the service's own queries wait
 *   while a client's transaction (or an extended-query batch up to its Sync)
 *   is open and never land inside it. A client holding the lock silent for
 *   `idleMs` is cut off and its transaction rolled back.
 * - When a client leaves, what it left in the shared session is undone:
 *   an open transaction, its named prepared statements, advisory locks.
 *
 * `@electric-sql/pglite-socket` does the same forwarding but takes the lock
 * per message (a service query could run inside a client's transaction),
 * pins another PGlite release and leaves the socket's permissions as the
 * umask has them; this file is the part of it the service needs.
 */
import { chmodSync, existsSync, unlinkSync } from 'node:fs'
import { createConnection, createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import { storeDriver, type Store } from './db.js'

/** The socket's file name in the data directory (PostgreSQL's, port 5432). */
export const SHARED_SOCKET = '.s.PGSQL.5432'
/** Longest Unix socket path Linux accepts (sun_path, 108 bytes with the NUL). */
const MAX_SOCKET_PATH = 107

export function sharedSocketPath (dataDir: string): string {
  return join(dataDir, SHARED_SOCKET)
}

/** The URL `pg` opens the shared database with (a socket directory as host). */
export function sharedDatabaseUrl (dataDir: string): string {
  return `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(dataDir)}`
}

/** Whether a service answers on the data directory's socket (a file left by a dead one does not). */
export async function sharedDatabaseAnswers (dataDir: string, timeoutMs = 1000): Promise<boolean> {
  const path = sharedSocketPath(dataDir)
  if (!existsSync(path)) return false
  return await new Promise((resolve) => {
    const socket = createConnection(path)
    const done = (ok: boolean): void => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(timeoutMs, () => done(false))
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
  })
}

export interface SharedDatabase {
  readonly path: string
  /** Stops accepting clients, cuts those connected (their transactions rolled back) and removes the socket. */
  close(): Promise<void>
}

const SSL_REQUEST = 80877103
const GSS_REQUEST = 80877104
const PROTOCOL_3 = 196608

/** A simple-protocol Query message. */
function queryMessage (text: string): Uint8Array {
  const body = Buffer.from(`${text}\0`)
  const out = Buffer.alloc(5 + body.length)
  out.write('Q', 0)
  out.writeInt32BE(4 + body.length, 1)
  body.copy(out, 5)
  return out
}

/** The status of the last ReadyForQuery in PGlite's answer ('I', 'T', 'E'), if there is one. */
function readyStatus (answer: Uint8Array): string | undefined {
  const buf = Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength)
  let status: string | undefined
  for (let at = 0; at + 5 <= buf.length;) {
    const length = buf.readInt32BE(at + 1)
    if (buf[at] === 0x5a && length === 5 && at + 6 <= buf.length) status = String.fromCharCode(buf[at + 5]!)
    at += 1 + length
  }
  return status
}

/**
 * Shares an open embedded store (see above). Answers undefined, with the
 * reason, when it cannot: a store on PostgreSQL needs none, an in-memory one
 * has no directory, and a directory path too long for a socket.
 */
export async function shareStore (store: Store, dataDir: string, opts: { idleMs?: number } = {}): Promise<SharedDatabase | string> {
  const driver = storeDriver(store)
  if (driver.kind !== 'pglite') return 'the database is a PostgreSQL server: the CLI connects to it directly'
  const path = sharedSocketPath(dataDir)
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) return `the data directory's path is too long for a socket (${path}); stop the service to use the CLI`
  const db = driver.client
  const idleMs = opts.idleMs ?? 30_000
  // The service holds the directory's lock, so a socket file there is a dead service's.
  if (existsSync(path)) unlinkSync(path)
  const clients = new Set<Socket>()
  const server: Server = createServer((socket) => {
    clients.add(socket)
    socket.once('close', () => clients.delete(socket))
    serve(db, socket, idleMs)
  })
  // Made unreadable to others from the start (bind happens within listen), then set once more.
  const umask = process.umask(0o177)
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(path, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } finally {
    process.umask(umask)
  }
  chmodSync(path, 0o600)
  let closed: Promise<void> | undefined
  return {
    path,
    close: () => (closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve())
      for (const socket of clients) socket.destroy()
    }).finally(() => {
      try { unlinkSync(path) } catch {}
    }))
  }
}

/** One client: its messages framed, forwarded to PGlite under the lock, answers written back. */
function serve (db: PGlite, socket: Socket, idleMs: number): void {
  let pending: Buffer = Buffer.alloc(0)
  let started = false
  let release: (() => void) | undefined
  let idle: NodeJS.Timeout | undefined
  let queue = Promise.resolve()
  let gone = false

  const lock = async (): Promise<void> => {
    if (release !== undefined) return
    await new Promise<void>((resolve) => {
      void db._runExclusiveTransaction(async () => await new Promise<void>((_resolve) => {
        release = _resolve
        resolve()
      }))
    })
  }
  const unlock = (): void => {
    clearTimeout(idle)
    const r = release
    release = undefined
    r?.()
  }
  const run = async (message: Uint8Array): Promise<Uint8Array> =>
    await db._runExclusiveQuery(async () => await db.execProtocolRaw(message, { syncToFs: false }))

  /** Undoes what the client left in the shared session, then frees the lock. */
  const cleanUp = async (): Promise<void> => {
    if (!started) return
    started = false
    await lock()
    try {
      await run(queryMessage('ROLLBACK'))
      await run(queryMessage('DEALLOCATE ALL; SELECT pg_advisory_unlock_all()'))
    } catch {} finally {
      unlock()
    }
  }

  const handle = async (message: Buffer, startup: boolean): Promise<void> => {
    if (gone) return
    if (startup) {
      const code = message.readInt32BE(4)
      if (code === SSL_REQUEST || code === GSS_REQUEST) {
        socket.write('N')
        return
      }
      if (code !== PROTOCOL_3) {
        // A cancel request (or an unknown protocol): nothing this server can act on.
        socket.destroy()
        return
      }
      started = true
    } else if (message[0] === 0x58) {
      // Terminate: the client leaves (the session is PGlite's and stays).
      socket.end()
      return
    }
    await lock()
    const answer = await run(message)
    if (answer.length > 0 && !socket.destroyed) socket.write(answer)
    if (readyStatus(answer) === 'I') unlock()
    else {
      clearTimeout(idle)
      idle = setTimeout(() => socket.destroy(), idleMs)
    }
  }

  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    for (;;) {
      const startup = !started
      if (pending.length < (startup ? 8 : 5)) break
      const length = startup ? pending.readInt32BE(0) : 1 + pending.readInt32BE(1)
      if (length < (startup ? 8 : 5)) {
        socket.destroy()
        return
      }
      if (pending.length < length) break
      const message = pending.subarray(0, length)
      pending = pending.subarray(length)
      // A startup packet changes how the next message is framed: mark it now.
      if (startup && message.readInt32BE(4) === PROTOCOL_3) started = true
      const wasStartup = startup
      queue = queue.then(async () => await handle(message, wasStartup)).catch(() => { socket.destroy() })
    }
  })
  socket.on('error', () => {})
  socket.once('close', () => {
    gone = true
    queue = queue.then(cleanUp, cleanUp)
  })
}
