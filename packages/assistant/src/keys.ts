/**
 * The package's HMAC keys (dev-mode cookies, execution tokens): 32 random
 * bytes made on first use, kept in a site option sealed with the package's
 * secrets (never in the clear at rest, never logged), made once across
 * processes (an advisory lock; the second finds the first's).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import { sql } from 'drizzle-orm'
import type { PackageApi } from '@cms/core'
import { dbOf } from '@cms/store'

export interface HmacKey {
  sign: (text: string) => Promise<string>
  verify: (text: string, mac: string) => Promise<boolean>
}

export function hmacKey (api: PackageApi, option: string, description: string): HmacKey {
  const stored = api.option(option, Type.String({ maxLength: 1000 }), { default: '', description })
  let key: Promise<Buffer> | undefined

  async function load (): Promise<Buffer> {
    let sealed = await stored.get()
    if (sealed === '') {
      sealed = await api.services.store.transaction(async (tx) => {
        await dbOf(tx).execute(sql`select pg_advisory_xact_lock(hashtext(${`assistant:${option}`}))`)
        const now = await stored.get(tx)
        if (now !== '') return now
        const made = await api.secrets.seal(randomBytes(32).toString('base64'))
        await stored.set(made, tx)
        return made
      })
    }
    return Buffer.from(await api.secrets.open(sealed), 'base64')
  }

  const mac = async (text: string): Promise<Buffer> => {
    key ??= load().catch((err) => { key = undefined; throw err })
    return createHmac('sha256', await key).update(text).digest()
  }
  return {
    sign: async (text) => (await mac(text)).toString('base64url'),
    async verify (text, given) {
      const expected = await mac(text)
      const actual = Buffer.from(given, 'base64url')
      return actual.length === expected.length && timingSafeEqual(actual, expected)
    }
  }
}
