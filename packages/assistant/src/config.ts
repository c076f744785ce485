/**
 * The assistant's settings, read from the environment (or `.env`) when the
 * package registers and checked there (a bad value stops the start with one
 * line, as every setting):
 *
 *   CMS_ASSISTANT_EXECUTE             `1` turns `super-admin/execute` on (default off: 501)
 *   CMS_ASSISTANT_EXECUTE_TIMEOUT_MS  the sandbox's time limit, 100-30000 (default 2000)
 *   CMS_ASSISTANT_EXECUTE_MEMORY_MB   the sandbox's memory limit, 8-256 (default 32)
 */
import { SettingError } from '@cms/store'

export interface AssistantConfig {
  execute: boolean
  timeoutMs: number
  memoryBytes: number
}

function integer (env: Record<string, string | undefined>, name: string, min: number, max: number, def: number): number {
  const raw = env[name]?.trim()
  if (raw === undefined || raw === '') return def
  const n = /^\d{1,6}$/.test(raw) ? Number(raw) : NaN
  if (!(n >= min && n <= max)) throw new SettingError(name, raw, `an integer from ${min} to ${max}`)
  return n
}

export function assistantConfig (env: Record<string, string | undefined>): AssistantConfig {
  const flag = env.CMS_ASSISTANT_EXECUTE?.trim() ?? ''
  if (!['', '0', '1'].includes(flag)) throw new SettingError('CMS_ASSISTANT_EXECUTE', flag, '1 (on) or 0 (off)')
  return {
    execute: flag === '1',
    timeoutMs: integer(env, 'CMS_ASSISTANT_EXECUTE_TIMEOUT_MS', 100, 30_000, 2000),
    memoryBytes: integer(env, 'CMS_ASSISTANT_EXECUTE_MEMORY_MB', 8, 256, 32) * 1024 * 1024
  }
}
