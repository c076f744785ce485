/**
 * Apps under test and the callers that talk to them. Built like
 * `testApp()` in ../helpers.ts, but the store is kept: the harness makes its
 * users and application passwords directly in it (the first administrator
 * of a real site is made the same way, by the command line). Background
 * jobs are off: the tests drive everything through requests.
 */
import type { AddressInfo } from 'node:net'
import { mkdtempSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Store } from '@cms/store'
import { openTestStore } from '@cms/store/testing'
import { coreMigrations, ROLES, type CallerKind, type CmsPackage } from '@cms/core'
import { createCaller } from '@cms/core/testing'
import { anonymous, type TestCaller } from '@cms/rest/testing'
import { buildApp } from '../../src/app.js'
import { profiles } from '../../src/profiles.js'
import { loadSettings } from '../../src/settings.js'
import { BASE } from '../helpers.js'

export { BASE }

export interface Harness {
  app: FastifyInstance
  store: Store
  profile: 'A' | 'B'
  close: () => Promise<void>
}

/** Packages besides the installed ones, composed with the profile's namespaces plus theirs (a test's fixture package). */
export interface HarnessExtras { packages: readonly CmsPackage[] }

export async function harnessApp (env: Record<string, string> = {}, store?: Store, extras?: HarnessExtras): Promise<Harness> {
  const own = store === undefined
  const db = store ?? await openTestStore({ migrations: [coreMigrations] })
  // Uploads go to a directory of this app's own, removed when it closes.
  const content = mkdtempSync(join(tmpdir(), 'cms-harness-content-'))
  const settings = loadSettings({ CMS_BASE_URL: BASE, LOG_LEVEL: 'silent', CMS_DATA_DIR: '/nonexistent-not-used', CMS_CONTENT_DIR: content, ...env })
  const named = profiles[settings.deployment]!
  const profile = extras === undefined ? undefined : { ...named, namespaces: [...named.namespaces, ...extras.packages.flatMap((p) => p.namespaces)] }
  const app = await buildApp(settings, { store: db, logger: false, jobs: false, packages: extras?.packages, profile })
  await app.ready()
  let closed: Promise<void> | undefined
  return {
    app,
    store: db,
    profile: settings.deployment,
    close: async () => {
      closed ??= (async () => {
        await app.close()
        if (own) await db.close()
        await rm(content, { recursive: true, force: true })
      })()
      await closed
    }
  }
}

/** Listens on a free loopback port; returns `http://127.0.0.1:PORT`. */
export async function listenLoopback (app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address() as AddressInfo
  return `http://127.0.0.1:${address.port}`
}

export const CALLER_KINDS: readonly CallerKind[] = ['anonymous', ...[...ROLES].reverse()]

/** Anonymous plus one user of each role, least privileged first. */
export async function callersOfEveryKind (store: Store): Promise<Array<TestCaller<CallerKind>>> {
  const out: Array<TestCaller<CallerKind>> = [anonymous]
  for (const kind of CALLER_KINDS) {
    if (kind !== 'anonymous') out.push(await createCaller(store, kind))
  }
  return out
}
