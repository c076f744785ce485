/**
 * Ports for servers a test starts later (`freePort`, in `@cms/store/testing`).
 *
 * A port from `listen(0)`, closed and handed to a child process that binds it
 * seconds later, may meanwhile have gone to another test's server: the kernel
 * deals out one range (ip_local_port_range) to every `listen(0)` of the
 * machine, and to the local end of every outgoing connection. The child then
 * cannot listen, or the test reaches the other server; and a connection to a
 * closed port of that range may be given that very port as its local end and
 * connect to itself. So the port is taken below that range, where the kernel
 * gives out nothing, and claimed for the life of this process by a file in
 * the temporary directory that other test processes read before using a
 * port. A port that is never listened on is also a closed port nobody opens
 * meanwhile.
 */
import { readdirSync, readFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The lowest port the kernel hands out by itself (Linux's default when unreadable). */
function ephemeralLow (): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    if (Number.isInteger(low) && low > 1024) return low
  } catch {}
  return 32768
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const claimsDir = (): string => join(tmpdir(), `cms-test-ports-${process.getuid?.() ?? 'user'}`)

/**
 * Claims `port` for this process: its file `<port>-<pid>` is written first,
 * then the others' read; another live process's claim (one of two made at
 * once sees the other's) gives the port up. Dead processes' claims are
 * removed on the way.
 */
function claim (dir: string, port: number): boolean {
  const mine = `${port}-${process.pid}`
  writeFileSync(join(dir, mine), '')
  for (const name of readdirSync(dir)) {
    const [p, pid] = name.split('-')
    if (p !== String(port) || name === mine) continue
    if (alive(Number(pid))) {
      rmSync(join(dir, mine), { force: true })
      return false
    }
    rmSync(join(dir, name), { force: true })
  }
  return true
}

const bindable = async (port: number): Promise<boolean> => await new Promise((resolve) => {
  const probe = createServer()
  probe.once('error', () => { resolve(false) })
  probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => { probe.close(() => { resolve(true) }) })
})

/** This process's claims, by directory and port. */
const claimed = new Set<string>()

/**
 * A loopback port free now and kept from every other test process using this
 * function while this process lives (below the kernel's own range, so no
 * `listen(0)` of the machine is given it meanwhile). For a server started later
 * (a child process, a restart on the same port) or a port that must stay
 * closed; a server the test itself starts at once listens on port 0.
 * `dir` and `range` (from, to excluded) are for the test of this function.
 */
export async function freePort (opts: { dir?: string, range?: readonly [number, number] } = {}): Promise<number> {
  const high = opts.range?.[1] ?? ephemeralLow()
  const low = opts.range?.[0] ?? (high - 1024 > 20_000 ? 20_000 : 1024)
  const dir = opts.dir ?? claimsDir()
  mkdirSync(dir, { recursive: true })
  for (let tries = 0; tries < 200; tries++) {
    const port = low + Math.floor(Math.random() * (high - low))
    if (claimed.has(`${dir} ${port}`) || !claim(dir, port)) continue
    if (await bindable(port)) {
      claimed.add(`${dir} ${port}`)
      return port
    }
    rmSync(join(dir, `${port}-${process.pid}`), { force: true })
  }
  throw new Error(`no free port in ${low}-${high - 1} after 200 tries`)
}
