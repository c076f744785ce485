/**
 * The kernel serving one namespace's routes, as most of this package's
 * tests build it: `rest` holds the kernel's other options (the caller,
 * the horizon, budgets).
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { kernelServerOptions, restKernel, type KernelOptions, type RouteDecl } from '../src/index.js'

export async function oneNamespaceApp (name: string, routes: RouteDecl[], rest: Omit<KernelOptions, 'namespaces'> = {}): Promise<FastifyInstance> {
  const app = Fastify({ ...kernelServerOptions(), logger: false })
  await app.register(restKernel, { namespaces: [{ name, routes }], ...rest })
  return app
}
