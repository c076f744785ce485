/**
 * Which package serves which namespace. A namespace without a module yet is
 * served with its root route only.
 */
import type { NamespaceDecl } from '@cms/rest'
import { cmsV2Namespace, oembedNamespace, type Services } from '@cms/core'

export type NamespaceFactory = (services: Services, options: Record<string, unknown>) => NamespaceDecl

export const namespaceModules: Record<string, NamespaceFactory> = {
  'oembed/1.0': oembedNamespace,
  'cms/v2': cmsV2Namespace
}

export function buildNamespace (name: string, services: Services, options: Record<string, unknown> = {}): NamespaceDecl {
  const factory = namespaceModules[name]
  return factory === undefined ? { name, routes: [] } : factory(services, options)
}
