/**
 * Which IP addresses an outbound fetch may reach. Addresses are compared as
 * bytes, so every spelling of an address (IPv4-mapped IPv6, NAT64, 6to4)
 * is judged by the IPv4 address it carries.
 */
import { isIPv4, isIPv6 } from 'node:net'

export type AddressBytes = Uint8Array

/** `1.2.3.4` / `::1` / `[::1]` -> bytes (4 or 16), or null when it is not an IP address. */
export function parseIp (text: string): AddressBytes | null {
  const s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  if (isIPv4(s)) return Uint8Array.from(s.split('.').map(Number))
  if (isIPv6(s)) return parseIPv6(s.replace(/%.*$/, ''))
  return null
}

function parseIPv6 (s: string): AddressBytes {
  const out = new Uint8Array(16)
  const groups = (part: string): number[] => {
    if (part === '') return []
    const words: number[] = []
    for (const g of part.split(':')) {
      if (g.includes('.')) {
        const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number]
        words.push((a << 8) | b, (c << 8) | d)
      } else {
        words.push(parseInt(g, 16))
      }
    }
    return words
  }
  const gap = s.indexOf('::')
  const head = groups(gap === -1 ? s : s.slice(0, gap))
  const tail = gap === -1 ? [] : groups(s.slice(gap + 2))
  const words = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail]
  words.forEach((w, i) => { out[i * 2] = w >> 8; out[i * 2 + 1] = w & 0xff })
  return out
}

export function formatIp (bytes: AddressBytes): string {
  if (bytes.length === 4) return bytes.join('.')
  const words: string[] = []
  for (let i = 0; i < 16; i += 2) words.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16))
  return words.join(':')
}

export interface Cidr { bytes: AddressBytes, prefix: number }

/** `10.0.0.0/8`, `fc00::/7` or a single address (full-length prefix); null when malformed. */
export function parseCidr (text: string): Cidr | null {
  const slash = text.lastIndexOf('/')
  const bytes = parseIp(slash === -1 ? text : text.slice(0, slash))
  if (bytes === null) return null
  const max = bytes.length * 8
  if (slash === -1) return { bytes, prefix: max }
  const p = text.slice(slash + 1)
  if (!/^\d{1,3}$/.test(p) || Number(p) > max) return null
  return { bytes, prefix: Number(p) }
}

export function inCidr (address: AddressBytes, range: Cidr): boolean {
  if (address.length !== range.bytes.length) return false
  let bits = range.prefix
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff
    if ((address[i]! & mask) !== (range.bytes[i]! & mask)) return false
  }
  return true
}

const cidrs = (list: string[]): Cidr[] => list.map((c) => parseCidr(c)!)

/** Ranges that are not the public internet: private, loopback, link-local, shared, reserved, multicast. */
const NON_PUBLIC_V4 = cidrs([
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12',
  '192.0.0.0/24', '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15',
  '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4'
])

const NON_PUBLIC_V6 = cidrs([
  '::/96', // unspecified, loopback and the deprecated IPv4-compatible form
  '64:ff9b:1::/48', // local-use NAT64: the operator's own translator, in front of its own network
  '100::/64', '2001::/23', '2001:db8::/32', '3fff::/20', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8'
])

/** Cloud metadata services; refused even inside an allowed range unless named one by one. */
export const METADATA = cidrs([
  '169.254.169.254', '169.254.170.2', '169.254.169.123', '168.63.129.16', '100.100.100.200', 'fd00:ec2::254'
])

/**
 * IPv6 forms that stand for an IPv4 address (a translator or tunnel delivers
 * to it): mapped `::ffff:a.b.c.d`, translated `::ffff:0:a.b.c.d` (SIIT),
 * NAT64 (well-known `64:ff9b::/96`) and 6to4 (`2002:AABB:CCDD::/48`). The
 * deprecated IPv4-compatible `::a.b.c.d` lies in `::/96`, refused whatever it
 * carries (NON_PUBLIC_V6), so an allowed IPv4 address does not allow it. The local-use NAT64 prefix
 * `64:ff9b:1::/48` places the address where its operator chose, so the whole
 * prefix is judged non-public (NON_PUBLIC_V6) rather than guessed.
 */
const CARRIERS: Array<{ range: Cidr, offset: number }> = [
  { range: parseCidr('::ffff:0:0/96')!, offset: 12 },
  { range: parseCidr('::ffff:0:0:0/96')!, offset: 12 },
  { range: parseCidr('64:ff9b::/96')!, offset: 12 },
  { range: parseCidr('2002::/16')!, offset: 2 }
]

const TEREDO = parseCidr('2001::/32')!

/** The IPv4 address an IPv6 address stands for, if it is one of the carrying forms. */
export function embeddedIPv4 (bytes: AddressBytes): AddressBytes | null {
  if (bytes.length !== 16) return null
  for (const { range, offset } of CARRIERS) {
    if (inCidr(bytes, range)) return bytes.slice(offset, offset + 4)
  }
  return null
}

/**
 * Every IPv4 address an IPv6 address carries, for refusing: the translated
 * one above, plus the tunnel end points that packets to it reach: Teredo's
 * server (bits 32-63) and client (the last 32 bits, inverted), and ISATAP's
 * (interface id `0000:5efe` or `0200:5efe` then the IPv4 address, under any
 * prefix).
 */
export function carriedIPv4s (bytes: AddressBytes): AddressBytes[] {
  if (bytes.length !== 16) return []
  const out: AddressBytes[] = []
  const translated = embeddedIPv4(bytes)
  if (translated !== null) out.push(translated)
  if (inCidr(bytes, TEREDO)) {
    out.push(bytes.slice(4, 8), bytes.slice(12, 16).map((b) => b ^ 0xff))
  }
  if ((bytes[8]! & 0xfd) === 0 && bytes[9] === 0 && bytes[10] === 0x5e && bytes[11] === 0xfe) {
    out.push(bytes.slice(12, 16))
  }
  return out
}

export type AddressClass = 'public' | 'non-public' | 'metadata'

/**
 * An IPv6 address is public only when it is outside the reserved ranges and
 * every IPv4 address it carries is public too; a carried metadata address
 * makes it a metadata address.
 */
export function classifyAddress (bytes: AddressBytes): AddressClass {
  if (bytes.length === 4) {
    if (METADATA.some((r) => inCidr(bytes, r))) return 'metadata'
    return NON_PUBLIC_V4.some((r) => inCidr(bytes, r)) ? 'non-public' : 'public'
  }
  const carried = carriedIPv4s(bytes)
  if ([bytes, ...carried].some((a) => METADATA.some((r) => inCidr(a, r)))) return 'metadata'
  if (carried.some((v4) => NON_PUBLIC_V4.some((r) => inCidr(v4, r)))) return 'non-public'
  // `::a.b.c.d` (IPv4-compatible) lies in `::/96` and is refused whatever it carries.
  return NON_PUBLIC_V6.some((r) => inCidr(bytes, r)) ? 'non-public' : 'public'
}
