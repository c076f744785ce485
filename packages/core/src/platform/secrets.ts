/**
 * Secrets a package keeps at rest (a third party's access token): sealed
 * with AES-256-GCM under a key derived (HKDF) from the site key and the
 * package's name, so one package cannot open another's and a copied row
 * means nothing without the site key. The sealed form is
 * `v1.<iv>.<tag>.<ciphertext>` (base64url).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import type { Store } from '@cms/store'
import { siteKey } from './site-keys/index.js'

export interface Secrets {
  seal: (plain: string) => Promise<string>
  /** The sealed text's plain text; throws when it was not sealed by this package with this site key. */
  open: (sealed: string) => Promise<string>
}

export function packageSecrets (store: () => Store, owner: string): Secrets {
  const keyOf = async (): Promise<Buffer> => Buffer.from(hkdfSync('sha256', await siteKey(store()), Buffer.alloc(0), `cms package secrets: ${owner}`, 32))
  return {
    async seal (plain) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', await keyOf(), iv)
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.')
    },
    async open (sealed) {
      const [v, iv, tag, body] = sealed.split('.')
      if (v !== 'v1' || iv === undefined || tag === undefined || body === undefined) throw new Error('not a sealed secret')
      const decipher = createDecipheriv('aes-256-gcm', await keyOf(), Buffer.from(iv, 'base64url'))
      decipher.setAuthTag(Buffer.from(tag, 'base64url'))
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
    }
  }
}
