import { getOption, getOptions, knownOptions, OptionError, setOption, validateOption } from '@cms/store'
import type { OptionValue } from '@cms/store'
import { parseArgs } from 'node:util'
import { argvForParse, parseOrUsage, UsageError, withStore } from '../command.js'
import type { CommandGroup } from '../command.js'

const usage = `Usage:
  cms site get [<option>] [--json]   print one option, or all options as JSON
  cms site set <option> <value>      set an option (prints the stored value)

<value> is read as JSON when it parses as JSON (10, "10", true), otherwise
as a plain string. Values are validated against the option's type.

Options:
  ${knownOptions.join(', ')}

Flags:
  --json      print a single value as JSON (strings quoted)
  -h, --help  show this help`

/** `10` -> 10, `"x"` -> "x", `hello` -> "hello". */
export function parseValue (raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown
  } catch {
    return raw
  }
}

/**
 * The JSON reading of `raw` when the option accepts it, else the plain
 * string when that is accepted (`cms site set name null` sets "null").
 */
function valueFor (name: string, raw: string): unknown {
  const parsed = parseValue(raw)
  try {
    validateOption(name, parsed)
    return parsed
  } catch (err) {
    if (!(err instanceof OptionError) || err.code !== 'invalid_option_value' || parsed === raw) throw err
    try {
      validateOption(name, raw)
      return raw
    } catch {
      throw err
    }
  }
}

function format (value: OptionValue, json: boolean): string {
  return json || typeof value !== 'string' ? JSON.stringify(value) : value
}

export const siteCommand: CommandGroup = {
  name: 'site',
  summary: 'read and change site options (name, timezone_string, posts_per_page, ...)',
  writes: ['set'],
  usage,
  async run (args, ctx) {
    const { values, positionals } = parseOrUsage('site', () =>
      parseArgs({
        args: argvForParse(args),
        options: { help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' } },
        allowPositionals: true,
      })
    )
    const [action, ...rest] = positionals
    if (values.help || action === 'help') {
      ctx.out(usage)
      return 0
    }
    switch (action) {
      case 'get': {
        if (rest.length > 1) throw new UsageError('too many arguments for "site get"', 'site')
        const name = rest[0]
        if (name !== undefined) validateName(name)
        await withStore(ctx, async (store) => {
          if (name === undefined) ctx.out(JSON.stringify(await getOptions(store), null, 2))
          else ctx.out(format(await getOption(store, name), values.json ?? false))
        })
        return 0
      }
      case 'set': {
        if (rest.length < 2) throw new UsageError('expected: cms site set <option> <value>', 'site')
        if (rest.length > 2) throw new UsageError('too many arguments (quote a value that contains spaces)', 'site')
        const [name, raw] = rest as [string, string]
        validateName(name)
        const value = valueFor(name, raw) // validated before the database is opened
        await withStore(ctx, async (store) => {
          ctx.out(format(await setOption(store, name, value), values.json ?? false))
        })
        return 0
      }
      case undefined:
        throw new UsageError('missing subcommand (get or set)', 'site')
      default:
        throw new UsageError(`unknown subcommand "${action}" (expected get or set)`, 'site')
    }
  },
}

function validateName (name: string): void {
  if (!knownOptions.includes(name)) {
    throw new OptionError('unknown_option', `unknown option "${name}" (see: cms site --help)`, name)
  }
}
