/**
 * The site key: a random secret the site creates once, under which
 * application passwords are hashed (users/passwords.ts), the sign-in page
 * signs its nonces and packages' secrets are sealed (secrets.ts).
 */
import { randomBytes } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { storeSlot, type Store } from '@cms/store'
import { siteKeys } from './schema.js'

// The site key is created once (the first replica to need it wins) and never changes: read once per store.
const SITE_KEY = storeSlot('users/site-key', (): { key?: Promise<Buffer> } => ({}))

export function siteKey (store: Store): Promise<Buffer> {
  const kept = store.local?.(SITE_KEY) ?? {}
  if (kept.key === undefined) {
    const key = loadSiteKey(store)
    kept.key = key
    key.catch(() => { if (kept.key === key) kept.key = undefined })
  }
  return kept.key
}

async function loadSiteKey (store: Store): Promise<Buffer> {
  const name = 'application_passwords'
  await store.db.insert(siteKeys).values({ name, value: randomBytes(32).toString('base64url') }).onConflictDoNothing()
  const rows = await store.db.select({ value: siteKeys.value }).from(siteKeys).where(eq(siteKeys.name, name))
  return Buffer.from(rows[0]!.value, 'base64url')
}
