/** A loopback port free at the time of asking, for a service a test starts as a child process. */
import { createServer } from 'node:net'

export async function freePort (): Promise<number> {
  return await new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}
