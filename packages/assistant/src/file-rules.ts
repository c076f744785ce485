/**
 * The static rules of snippet files (seo-rollback-assistant-addons.md
 * §3.2), each with its code, in the notes' order: `files` is 1 to 100
 * items, each `{name, content}`; a bare name (no `/`, `\`, `..`, NUL) with
 * a `php`, `css` or `js` extension; content at most 102,400 bytes; no name
 * twice; and `main.php` in the merged set. The content checks (forbidden
 * PHP functions, JavaScript syntax) run in the sandbox thread
 * (sandbox.ts); PHP is never executed here: the product's execution check is
 * a validator that passes (`executionCheck`). Work is linear in the files'
 * size.
 */
import type { RestError } from '@cms/rest'
import { assistantErrors } from './errors.js'
import { checkInSandbox } from './sandbox.js'

export const MAX_FILES = 100
export const MAX_FILE_BYTES = 102_400
export const EXTENSIONS = ['php', 'css', 'js'] as const
export const MAIN_FILE = 'main.php'

export interface SnippetFile { name: string, content: string }

/** The request's `files`, shape and names checked (the first failure thrown). */
export function readFiles (value: unknown): SnippetFile[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_FILES) throw assistantErrors.invalid_files()
  const seen = new Set<string>()
  return value.map((item: unknown, i) => {
    const f = item as Record<string, unknown> | null
    if (typeof f !== 'object' || f === null || typeof f.name !== 'string' || f.name === '' || typeof f.content !== 'string') {
      throw assistantErrors.invalid_file_format({ index: i }, `File ${i} needs a name and a content (strings).`)
    }
    const name = f.name
    if (name.length > 255 || /[/\\\0]/.test(name) || name.includes('..')) throw assistantErrors.invalid_filename({ file: name.slice(0, 255) }, `Invalid file name: ${JSON.stringify(name.slice(0, 255))}.`)
    const dot = name.lastIndexOf('.')
    const ext = dot < 0 ? '' : name.slice(dot + 1).toLowerCase()
    if (!(EXTENSIONS as readonly string[]).includes(ext)) throw assistantErrors.invalid_file_type({ file: name }, `Invalid file type for ${name}: only php, css and js files are allowed.`)
    const bytes = Buffer.byteLength(f.content, 'utf8')
    if (bytes > MAX_FILE_BYTES) throw assistantErrors.file_too_large({ file: name, size: bytes, max: MAX_FILE_BYTES }, `${name} is ${bytes} bytes; a file may hold at most ${MAX_FILE_BYTES}.`)
    if (seen.has(name)) throw assistantErrors.duplicate_filename({ file: name }, `Duplicate file name: ${name}.`)
    seen.add(name)
    return { name, content: f.content }
  })
}

/** `main.php` in the set a save leaves (the stored names plus the given ones). */
export function requireMain (names: Iterable<string>): void {
  for (const n of names) if (n === MAIN_FILE) return
  throw assistantErrors.main_php_required()
}

/**
 * The execution check the real product runs on `main.php` (PHP, which
 * this service never runs): a pluggable validator, passing by default as
 * the product's check passes when it cannot run (§3.3 validate).
 */
export type ExecutionCheck = (files: readonly SnippetFile[]) => Promise<RestError | undefined>
export const executionCheck: ExecutionCheck = async () => undefined

/**
 * The PHP functions the notes forbid (§3.2), as calls (`eval (`, `Exec(`),
 * fully qualified ones too (`\system(` is the global function), not methods
 * (`->exec(`, `::exec(`), longer names (`my_system(`) or functions of a
 * namespace (`Lib\exec(`). Linear: a literal alternation, then whitespace,
 * then `(`.
 */
const FORBIDDEN = /(?<![\w$>:])(?<!\w\\)(eval|exec|shell_exec|system|passthru|proc_open|popen|pcntl_exec|assert|create_function)\s*\(/i
/** Sets up to this many bytes of PHP are scanned on the request thread; larger ones with the JavaScript parse, off it. */
const INLINE_BYTES = 256 * 1024

function forbiddenIn (files: readonly SnippetFile[]): RestError | undefined {
  for (const f of files) {
    if (!f.name.toLowerCase().endsWith('.php')) continue
    const m = FORBIDDEN.exec(f.content)
    if (m !== null) return forbidden(m[1]!.toLowerCase(), f.name)
  }
  return undefined
}

function forbidden (name: string, file: string): RestError {
  return assistantErrors.forbidden_function({ details: { file, function: name } }, `Forbidden function detected: ${name}`)
}

/** The content checks (forbidden PHP functions, JavaScript syntax, the execution check); throws the first failure. */
export async function checkContent (files: readonly SnippetFile[]): Promise<void> {
  const php = files.filter((f) => f.name.toLowerCase().endsWith('.php'))
  const inline = php.reduce((n, f) => n + f.content.length, 0) <= INLINE_BYTES
  if (inline) {
    const found = forbiddenIn(php)
    if (found !== undefined) throw found
  }
  const offThread = [...(inline ? [] : php), ...files.filter((f) => f.name.toLowerCase().endsWith('.js'))]
  if (offThread.length > 0) {
    const answer = await checkInSandbox(offThread, FORBIDDEN.source)
    if (!answer.ok) {
      throw answer.code === 'forbidden_function'
        ? forbidden(answer.name, answer.file)
        : assistantErrors.validation_failed({ details: answer.details }, answer.message)
    }
  }
  const failed = await executionCheck(files)
  if (failed !== undefined) throw failed
}
