/**
 * Runs one documentation file's shell blocks, in document order, in one
 * bash process (what a reader types into one terminal: variables a block
 * sets are there for the next), and says what went wrong:
 * - a command exiting non-zero stops the file (`set -euo pipefail`: an
 *   unset variable is an error too), named by its line in the document;
 * - every curl goes through a wrapper that records its HTTP status and
 *   output; an answer of 400 or more is a failure unless the output the
 *   document shows after the command is that error (`"data":{"status":404}`);
 * - an output the document shows after a command (`# {...}`, `# [...]` or
 *   a JSON string, `# "..."`) is matched against what it printed (expected-output.ts);
 * - in a ```console block, each command's output goes to a file of its own,
 *   and the text shown after it (when not JSON) must be what it printed,
 *   line by line, `...` standing for any lines or any text in a line.
 * The documented addresses are the test's (`localAddresses`); the CLI (`pnpm cms`, `npx -y pnpm@... cms`, `cms`) runs
 * as `node scripts/cms.mjs`, what the root package.json's script runs, without
 * pnpm's own start; any other pnpm command is refused (its block needs a marker).
 */
import { execFile } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import type { DocBlock } from './doc-blocks.js'
import { mismatch, parseShown, textMismatch } from './expected-output.js'

/** Seconds a command may take: curl's --max-time; the CLI's timeout. */
const CURL_SECONDS = 20
const CLI_SECONDS = 60

export interface ShellOptions {
  /** The working directory: the directory the service was started from (its .data). */
  cwd: string
  /** The repository root (scripts/cms.mjs). */
  root: string
  /** The documented addresses made the test's (`localAddresses`). */
  rewrite: (text: string) => string
  env: NodeJS.ProcessEnv
  /** Lines run before the first block (the variables every file may use). */
  prelude: string
}

interface Call { line: number, status: number, output: string }

const PRELUDE = String.raw`
set -eEuo pipefail
exec 7>&1
trap 'echo "__docs_test_failed $? $LINENO ${'$'}{BASH_LINENO[*]} :: $BASH_COMMAND" >&2' ERR
curl () {
  local line=${'$'}{BASH_LINENO[0]} out rc status
  out=$(mktemp "$__DOCS_TEST_DIR/call.XXXXXX")
  set +e
  command curl --max-time ${CURL_SECONDS} -S -w '%{stderr}__docs_test_status %{http_code}\n' "$@" 2>"$out.err" | tee "$out"
  rc=${'$'}{PIPESTATUS[0]}
  set -e
  status=$(sed -n 's/^__docs_test_status //p' "$out.err" | tail -n 1)
  grep -v '^__docs_test_status ' "$out.err" >&2 || true
  printf '%s\t%s\t%s\n' "$line" "${'$'}{status:-0}" "$out" >>"$__DOCS_TEST_DIR/calls"
  return "$rc"
}
pnpm () {
  local args=("$@")
  if [ "${'$'}{args[0]:-}" = -s ]; then args=("${'$'}{args[@]:1}"); fi
  if [ "${'$'}{args[0]:-}" = cms ]; then
    timeout ${CLI_SECONDS} node "$__DOCS_TEST_ROOT/scripts/cms.mjs" "${'$'}{args[@]:1}"
    return
  fi
  echo "docs-test: 'pnpm $*' is not run by the docs test: mark its block <!-- docs-test: not run (reason) -->" >&2
  return 97
}
npx () {
  if [ "${'$'}{1:-}" = -y ] && [[ "${'$'}{2:-}" == pnpm@* ]]; then shift 2; pnpm "$@"; return; fi
  echo "docs-test: 'npx $*' is not run by the docs test: mark its block <!-- docs-test: not run (reason) -->" >&2
  return 97
}
cms () { pnpm cms "$@"; }
`

/**
 * The documented addresses made the test's: the service's (`127.0.0.1:8080`,
 * `localhost:8080`) and a webhook receiver's (`https://hooks.example.com`).
 */
export function localAddresses (servicePort: number, receiverPort: number): (text: string) => string {
  return (text) => text
    .replace(/\b(127\.0\.0\.1|localhost):8080\b/g, `127.0.0.1:${servicePort}`)
    .replace(/https:\/\/hooks\.example\.com\b/g, `http://127.0.0.1:${receiverPort}`)
}

/** The JSON of an output (after the headers curl -i prints), or undefined. */
function jsonOf (output: string): unknown {
  const body = /^HTTP\/[\d.]+ \d{3}/.test(output) ? output.slice(output.search(/\r?\n\r?\n/) + 1) : output
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

const isErrorShown = (shown: unknown, status: number): boolean =>
  typeof shown === 'object' && shown !== null && (shown as { data?: { status?: unknown } }).data?.status === status

/** Runs `blocks` (one file's, in order); answers the failures, each naming the document's line. */
export async function runFileBlocks (blocks: DocBlock[], opts: ShellOptions): Promise<{ failures: string[], curls: number }> {
  const dir = mkdtempSync(join(opts.cwd, '.docs-test-'))
  // Script line (1-based) -> the document's line, for the messages.
  const docLine: string[] = []
  const script: string[] = []
  const push = (text: string, where: string): void => {
    for (const l of text.split('\n')) {
      script.push(l)
      docLine.push(where)
    }
  }
  push(PRELUDE, 'the test\'s prelude')
  push(opts.prelude, 'the test\'s prelude')
  const lineOf = new Map<number, { block: DocBlock, offset: number }>()
  // A console block's commands print into a file each (out.N), for the text shown after them.
  const captures: Array<{ file: string, shown: string[], where: string }> = []
  for (const block of blocks) {
    const lines = opts.rewrite(block.text).split('\n')
    const shown = block.shown
    lines.forEach((l, i) => {
      const command = shown !== undefined && shown[i] === false
      const first = command && (i === 0 || shown[i - 1] === true || !lines[i - 1]!.endsWith('\\'))
      if (first) {
        captures.push({ file: join(dir, `out.${captures.length}`), shown: [], where: '' })
        push(`exec >"${captures.at(-1)!.file}"`, 'the test\'s capture of a console command')
      }
      if (shown?.[i] === true && captures.length > 0) {
        const c = captures.at(-1)!
        if (c.where === '') c.where = `${block.file}:${block.line + i}`
        c.shown.push(l.replace(/^# ?/, ''))
      }
      lineOf.set(script.length + 1, { block, offset: i })
      script.push(l)
      docLine.push(`${block.file}:${block.line + i}`)
      if (command && !l.endsWith('\\')) push('exec >&7', 'the test\'s capture of a console command')
    })
  }
  const file = join(dir, 'script.sh')
  writeFileSync(file, script.join('\n') + '\n')
  writeFileSync(join(dir, 'calls'), '')
  const env = { ...opts.env, __DOCS_TEST_DIR: dir, __DOCS_TEST_ROOT: opts.root }
  // Lines holding a command (or a part of one): the shell's time limit is counted from them.
  const commands = blocks.reduce((n, b) => n + b.text.split('\n').filter((l) => /^\s*[^#\s]/.test(l)).length, 0)
  const failures: string[] = []
  const run = await new Promise<{ code: number | null, stdout: string, stderr: string }>((resolve) => {
    execFile('bash', ['--norc', '--noprofile', file], { cwd: opts.cwd, env, timeout: (CLI_SECONDS + 5) * 1000 * Math.max(1, commands), maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : (typeof err.code === 'number' ? err.code : null), stdout, stderr })
    })
  })
  if (run.code !== 0) {
    // The ERR trap names the failing line and its callers' (inside a shim, the document's line is a caller);
    // bash names the line of an unset variable in its own message.
    const trapped = /__docs_test_failed (\d+) ([\d ]+) :: (.*)/.exec(run.stderr)
    const lines = trapped !== null ? trapped[2]!.trim().split(' ').map(Number) : [...run.stderr.matchAll(/script\.sh: line (\d+):/g)].map((m) => Number(m[1]))
    const at = lines.find((l) => lineOf.has(l))
    const where = at === undefined ? 'the shell' : docLine[at - 1]
    const stderr = run.stderr.replace(/__docs_test_failed.*\n?/g, '').trim().slice(-1500)
    failures.push(`${where}: exited ${trapped?.[1] ?? run.code ?? 'on a timeout'}${trapped === null ? '' : ` (${trapped[3]})`}\n${stderr}`)
  }

  const calls: Call[] = readFileSync(join(dir, 'calls'), 'utf8').split('\n').filter((l) => l !== '').map((l) => {
    const [line, status, out] = l.split('\t')
    return { line: Number(line), status: Number(status), output: readFileSync(out!, 'utf8') }
  })
  // Each shown output belongs to the last curl run between it and the shown output (or block) before it.
  const checked = new Set<Call>()
  let from = 0
  for (let s = 1; s <= script.length; s++) {
    const at = lineOf.get(s)
    if (at === undefined) continue
    if (at.offset === 0) from = s - 1
    const shownText = /^\s*#\s*([[{"].*)$/.exec(script[s - 1]!)?.[1]
    if (shownText === undefined) continue
    const where = docLine[s - 1]!
    const shown = parseShown(shownText)
    const call = calls.filter((c) => c.line > from && c.line < s).at(-1)
    from = s
    if (shown === undefined) {
      failures.push(`${where}: the output shown is not JSON (with ... for what is left out): ${shownText}`)
      continue
    }
    if (call === undefined) {
      // A command that did not run because an earlier one failed is reported once, above.
      if (run.code === 0) failures.push(`${where}: an output is shown but no curl command ran before it`)
      continue
    }
    checked.add(call)
    if (call.status >= 400 && !isErrorShown(shown, call.status)) failures.push(`${where}: answered ${call.status}: ${call.output.slice(0, 500)}`)
    const m = mismatch(shown, jsonOf(call.output))
    if (m !== undefined) failures.push(`${where}: the output differs from the one shown: ${m}`)
  }
  for (const call of calls) {
    if (checked.has(call) || call.status < 400) continue
    failures.push(`${docLine[call.line - 1]}: answered ${call.status}: ${call.output.slice(0, 500)}`)
  }
  // A console block's text output (JSON is checked above, against the curl before it): against what its command printed.
  for (const c of captures) {
    const first = c.shown.find((l) => l.trim() !== '')
    if (first === undefined || /^\s*[[{"]/.test(first)) continue
    // A command that did not run because an earlier one failed is reported once, above.
    if (!existsSync(c.file)) continue
    const m = textMismatch(c.shown, readFileSync(c.file, 'utf8'))
    if (m !== undefined) failures.push(`${c.where}: the output differs from the one shown: ${m}`)
  }
  return { failures, curls: calls.length }
}
