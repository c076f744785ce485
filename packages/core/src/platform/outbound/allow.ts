/**
 * The allow-list setting (`CMS_OUTBOUND_ALLOW`): comma-separated host names
 * (`intranet.example`, `*.corp.example`), IP addresses and CIDR ranges that
 * outbound fetches may reach although they are not public.
 */
import { classifyAddress, embeddedIPv4, inCidr, parseCidr, type AddressBytes, type Cidr } from './address.js'

export interface AllowList {
  /** A host name named in the list (exactly, or under a `*.` entry). */
  allowsHost (hostname: string): boolean
  /** An address inside a listed address or range; metadata addresses only when listed one by one. */
  allowsAddress (address: AddressBytes): boolean
  readonly entries: readonly string[]
}

const HOST_NAME = /^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/

/** Parses the setting; throws on an entry that is neither a host name, an address nor a range. */
export function parseAllowList (setting: string | undefined): AllowList {
  const entries = (setting ?? '').split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '')
  const hosts = new Set<string>()
  const suffixes: string[] = []
  const ranges: Cidr[] = []
  for (const entry of entries) {
    const range = parseCidr(entry)
    if (range !== null) {
      ranges.push(range)
      continue
    }
    const name = entry.replace(/\.$/, '')
    if (!HOST_NAME.test(name)) {
      throw new Error(`CMS_OUTBOUND_ALLOW: "${entry}" is not a host name, IP address or CIDR range`)
    }
    if (name.startsWith('*.')) suffixes.push(name.slice(1))
    else hosts.add(name)
  }
  return {
    entries,
    allowsHost (hostname) {
      const name = hostname.toLowerCase().replace(/\.$/, '')
      return hosts.has(name) || suffixes.some((s) => name.endsWith(s))
    },
    allowsAddress (address) {
      const metadata = classifyAddress(address) === 'metadata'
      const v4 = embeddedIPv4(address)
      return ranges.some((r) => (inCidr(address, r) || (v4 !== null && inCidr(v4, r))) &&
        (!metadata || r.prefix === r.bytes.length * 8))
    }
  }
}
