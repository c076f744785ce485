/**
 * Namespaces switched on and off while the server runs (`KernelOptions.activation`:
 * a deactivated plugin's). An off namespace answers as one never declared:
 * its routes `404 rest_no_route` (OPTIONS: the empty list), over HTTP and
 * in-process (batch, `_embed`); the index, the namespace roots and the
 * OpenAPI document leave it out (registry.ts, openapi.ts). Only routes of
 * namespaces that can be off pay for the question: a cached set the
 * deployment keeps by the `activation` epoch (epochs.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { kernelErrors } from './errors.js'
import { send } from './render.js'
import { dropBody, hasBody } from './early-refusal.js'
import type { KernelOptions } from './options.js'
import { epochToken, snapshotAsker } from './epochs.js'

const NONE: ReadonlySet<string> = new Set()

/** Whether a namespace is off now (false, at no cost, for one that cannot be). */
export type SwitchedOff = (namespace: string) => Promise<boolean>

export function switchedOff (opts: Pick<KernelOptions, 'activation' | 'horizon' | 'snapshot'>): SwitchedOff {
  const activation = opts.activation
  if (activation === undefined || activation.namespaces.length === 0) return async () => false
  const switchable = new Set(activation.namespaces)
  const validity = activationValidity(opts)
  return async (namespace) => switchable.has(namespace) && (await activation.off(validity)).has(namespace)
}

/** The token the off set is kept under: the `activation` epoch (the horizon without it), taken afresh. */
function activationValidity (opts: Pick<KernelOptions, 'horizon' | 'snapshot'>): () => Promise<string | undefined> {
  const ask = snapshotAsker(opts)
  return async () => epochToken(await ask(), 'activation')
}

/** The namespaces (and packages' contributions) off now (for the OpenAPI document). */
export function offNow (opts: Pick<KernelOptions, 'activation' | 'horizon' | 'snapshot'>): () => Promise<ReadonlySet<string>> {
  const activation = opts.activation
  // Asked even when no local namespace can be off: the set names packages whose contributions are off too.
  if (activation === undefined) return async () => NONE
  const validity = activationValidity(opts)
  return async () => await activation.off(validity)
}

/** A route's `onRequest` hook when its namespace can be off; undefined when it cannot. */
export function refuseSwitchedOff (namespace: string, opts: Pick<KernelOptions, 'activation' | 'horizon' | 'snapshot' | 'jsonBodyLimit'>, smallBytes: number): ((request: FastifyRequest, reply: FastifyReply) => Promise<void>) | undefined {
  if (opts.activation?.namespaces.includes(namespace) !== true) return undefined
  const isOff = switchedOff(opts)
  return async (request, reply) => {
    if (!(await isOff(namespace))) return
    // Before the body is read: none is for a route that does not exist now.
    if (hasBody(request)) dropBody(request, reply, smallBytes)
    if (request.method === 'OPTIONS') {
      await send(request, reply, 200, {}, [])
      return
    }
    throw kernelErrors.rest_no_route()
  }
}
