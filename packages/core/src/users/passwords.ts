/**
 * Secrets of the users module: application passwords (random, stored as a
 * keyed hash under the site key, platform/site-keys) and account
 * passwords for the sign-in page (scrypt).
 */
import { createHmac, randomBytes, randomInt, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
export const APP_PASSWORD_LENGTH = 24

/** 24 characters of [A-Za-z0-9] from the system's cryptographic generator. */
export function generateAppPassword (): string {
  let out = ''
  for (let i = 0; i < APP_PASSWORD_LENGTH; i++) out += ALPHABET[randomInt(ALPHABET.length)]
  return out
}

/** `abcdEFGH...` -> `abcd EFGH ...`, the form shown to people. */
export function chunkPassword (password: string): string {
  return password.match(/.{1,4}/g)?.join(' ') ?? ''
}

/** What is compared: every character that is not a letter or digit is ignored. */
export function normalizeAppPassword (presented: string): string {
  return presented.replace(/[^A-Za-z0-9]/g, '')
}

export function keyedHash (key: Buffer, password: string): string {
  return createHmac('sha256', key).update(password, 'utf8').digest('base64url')
}

/** Constant-time comparison of two base64url hashes. */
export function sameHash (a: string, b: string): boolean {
  const x = Buffer.from(a, 'base64url')
  const y = Buffer.from(b, 'base64url')
  return x.length === y.length && timingSafeEqual(x, y)
}

// Account passwords (sign-in page): scrypt with a per-password salt.
const SCRYPT: ScryptOptions & { N: number, r: number, p: number } = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }
const SCRYPT_LEN = 32

function scryptAsync (password: string, salt: Buffer, opts: ScryptOptions, len: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, len, opts, (err, out) => { if (err !== null) reject(err); else resolve(out) })
  })
}

/** `scrypt$N$r$p$salt$hash` (base64url parts). */
export async function hashAccountPassword (password: string): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scryptAsync(password, salt, SCRYPT, SCRYPT_LEN)
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`
}

// Checked when the login is unknown, so both cases cost one scrypt.
const DUMMY_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${randomBytes(16).toString('base64url')}$${randomBytes(SCRYPT_LEN).toString('base64url')}`

export async function verifyAccountPassword (password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? DUMMY_HASH).split('$')
  const valid = parts.length === 6 && parts[0] === 'scrypt'
  const [, n, r, p, salt, hash] = valid ? parts : DUMMY_HASH.split('$')
  const expected = Buffer.from(hash!, 'base64url')
  const actual = await scryptAsync(password, Buffer.from(salt!, 'base64url'), {
    N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem
  }, expected.length)
  return timingSafeEqual(actual, expected) && stored !== null && stored !== undefined && valid
}
