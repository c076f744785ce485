import { parseArgs } from 'node:util'
import { argvForParse, parseOrUsage, UsageError, withStore } from '../command.js'
import type { CommandGroup } from '../command.js'
import { withPackages } from '../packages.js'
import { parseValue } from './site.js'

const usage = `Usage:
  cms option list                  the options packages declare (name, package, default)
  cms option get <name>            print an option's value as JSON (its default when unset)
  cms option set <name> <value>    check <value> against the option's schema and store it
  cms option reset <name>          remove the stored value (the default applies again)

Options declared by packages (api.option in their src/index.ts) each have a
schema; a value that does not fit it is refused and nothing is stored.
<value> is read as JSON when it parses as JSON (10, true, {"a":1}),
otherwise as a plain string. The core's own options: cms site.

Flags:
  -h, --help  show this help`

export const optionCommand: CommandGroup = {
  name: 'option',
  summary: "read and change the options packages declare (checked against each option's schema)",
  writes: ['set', 'reset'],
  usage,
  async run (args, ctx) {
    const { values, positionals } = parseOrUsage('option', () =>
      parseArgs({ args: argvForParse(args), options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true })
    )
    const [action, ...rest] = positionals
    if (values.help || action === 'help') {
      ctx.out(usage)
      return 0
    }
    const arity: Record<string, number> = { list: 0, get: 1, set: 2, reset: 1 }
    if (action === undefined) throw new UsageError('missing subcommand (list, get, set or reset)', 'option')
    if (arity[action] === undefined) throw new UsageError(`unknown subcommand "${action}" (expected list, get, set or reset)`, 'option')
    if (rest.length !== arity[action]) {
      throw new UsageError(rest.length > arity[action]! && action === 'set'
        ? 'too many arguments (quote a value that contains spaces)'
        : `expected: cms option ${action}${action === 'list' ? '' : ' <name>'}${action === 'set' ? ' <value>' : ''}`, 'option')
    }
    const [name, raw] = rest as [string | undefined, string | undefined]
    await withStore(ctx, async (store) => {
      await withPackages(store, async (_platform, { options }) => {
        if (action === 'list') {
          for (const spec of options.list()) ctx.out(`${spec.name}\t${spec.owner}\t${JSON.stringify(spec.default)}${spec.description === '' ? '' : `\t${spec.description}`}`)
          return
        }
        if (options.spec(name!) === undefined) throw new UsageError(`unknown option "${name}" (see: cms option list)`, 'option')
        if (action === 'get') ctx.out(JSON.stringify(await options.read(name!)))
        else if (action === 'reset') await options.reset(name!)
        else ctx.out(JSON.stringify(await options.write(name!, valueFor(options.check.bind(options), name!, raw!))))
      })
    })
    return 0
  },
}

/** The JSON reading of `raw` when the schema accepts it, else the plain string when that is accepted. */
function valueFor (check: (name: string, value: unknown) => unknown, name: string, raw: string): unknown {
  const parsed = parseValue(raw)
  try {
    return check(name, parsed)
  } catch (err) {
    if (!isInvalid(err) || parsed === raw) throw invalid(err)
    try {
      return check(name, raw)
    } catch {
      throw invalid(err)
    }
  }
}

/** The schema's refusal (`rest_invalid_param`, from PackageOptions.check). */
function isInvalid (err: unknown): err is Error & { data: { params?: Record<string, string> } } {
  return err instanceof Error && (err as { code?: string }).code === 'rest_invalid_param'
}

/** The schema's refusal as the command line prints it (one line, exit code 1). */
function invalid (err: unknown): unknown {
  if (!isInvalid(err)) return err
  return new Error(Object.values(err.data.params ?? {})[0] ?? err.message)
}
