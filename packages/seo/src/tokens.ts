/**
 * A provider's OAuth tokens kept in one of the package's options, sealed
 * (`api.secrets`): exchanged from an authorization code with the
 * provider's upstream, read back for its calls, and shown only masked
 * (the real product answers them in full; CONVENTIONS: never returned).
 */
import type { PackageApi, PackageOption, UpstreamClient } from '@cms/core'
import { Type, type TString } from '@sinclair/typebox'
import { seoErrors } from './errors.js'

export interface ProviderTokens {
  access_token: string
  refresh_token: string
  /** Unix time the access token expires (0: unknown). */
  expires: number
  created_at: number
}

/** What the routes answer of the tokens: their shape, the secrets masked. */
/** What `maskedTokens` gives: the tokens' last four characters only. */
export const MASKED_TOKENS = Type.Object({ access_token: Type.String(), refresh_token: Type.String(), expires: Type.Number(), has_expired: Type.Boolean(), created_at: Type.Number(), error_count: Type.Integer() })

export function maskedTokens (t: ProviderTokens): Record<string, unknown> {
  const mask = (s: string): string => s === '' ? '' : `…${s.slice(-4)}`
  const now = Math.floor(Date.now() / 1000)
  return { access_token: mask(t.access_token), refresh_token: mask(t.refresh_token), expires: t.expires, has_expired: t.expires > 0 && t.expires <= now, created_at: t.created_at, error_count: 0 }
}

export interface TokenStore {
  /** Exchanges `code` at `path` of the upstream and keeps the tokens sealed. */
  exchange: (client: UpstreamClient, path: string, code: string) => Promise<ProviderTokens>
  /** The access token, or `400 seo_token_empty` when not connected. */
  access: () => Promise<string>
}

export function tokenStore (api: PackageApi, option: PackageOption<TString>): TokenStore {
  return {
    async exchange (client, path, code) {
      const answer = (await client.request(path, { method: 'POST', json: { grant_type: 'authorization_code', code } })).json() as Record<string, unknown> | null
      if (typeof answer?.access_token !== 'string' || answer.access_token === '') throw seoErrors.seo_authentication_failed()
      const created = Math.floor(Date.now() / 1000)
      const tokens: ProviderTokens = {
        access_token: answer.access_token,
        refresh_token: typeof answer.refresh_token === 'string' ? answer.refresh_token : '',
        expires: typeof answer.expires_in === 'number' && answer.expires_in > 0 ? created + Math.floor(answer.expires_in) : 0,
        created_at: created
      }
      await option.set(await api.secrets.seal(JSON.stringify(tokens)))
      return tokens
    },
    async access () {
      const sealed = await option.get()
      if (sealed === '') throw seoErrors.seo_token_empty()
      try {
        return (JSON.parse(await api.secrets.open(sealed)) as ProviderTokens).access_token
      } catch {
        // Sealed under another site key (a copied database): as good as none.
        throw seoErrors.seo_token_empty()
      }
    }
  }
}
