// The CLI two ways: as a child process, as a user runs it (DATABASE_URL
// cleared unless given), and in-process against a test store (fast: no
// TypeScript start-up, no database opened per command).
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Store } from '@cms/store'
import { childArgs } from '@cms/store/testing'
import { run } from '../src/index.js'
import type { CliContext } from '../src/index.js'

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url))

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cms (args: string[], env: NodeJS.ProcessEnv): Promise<Result> {
  return new Promise((resolve, reject) => {
    // Run as this test runs (tsx, or under the test command the compiled CLI: childArgs of @cms/store/testing).
    const child = spawn(process.execPath, [...childArgs(main), ...args], {
      env: { ...process.env, DATABASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/**
 * Runs commands in this process against `store` (left open: the test closes
 * it). Without a store, a command that opens the database fails the test.
 */
export function inProcess (store?: Store, env: NodeJS.ProcessEnv = {}) {
  let opened = 0
  /** `io`: where a progress bar goes, a signal that interrupts (the context's own). */
  const exec = async (args: string[], io: Pick<CliContext, 'terminal' | 'signal'> = {}): Promise<Result> => {
    let stdout = ''
    let stderr = ''
    const ctx: CliContext = {
      env,
      out: (text) => (stdout += text.endsWith('\n') ? text : `${text}\n`),
      openStore: async () => {
        opened++
        if (!store) throw new Error('this command should not open the database')
        return { ...store, close: async () => {} }
      },
      ...io,
    }
    const code = await run(args, { ctx, err: (line) => (stderr += `${line}\n`) })
    return { code, stdout, stderr }
  }
  return { exec, opened: () => opened }
}
