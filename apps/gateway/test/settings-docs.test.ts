/**
 * docs/configuration.md is the one place a deployer reads the settings: every
 * setting the gateway validates at start must have its row there, so a new
 * setting cannot ship undocumented.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { SETTING_NAMES } from '../src/settings.js'

const doc = readFileSync(fileURLToPath(new URL('../../../docs/configuration.md', import.meta.url)), 'utf8')
// A setting's row names it in backquotes in the table's first column (a row may name several).
const documented = new Set<string>()
for (const line of doc.split('\n')) {
  if (!line.startsWith('| `')) continue
  const first = line.slice(1, line.indexOf(' |', 1))
  for (const m of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) documented.add(m[1]!)
}

t.ok(SETTING_NAMES.length > 40, `the gateway reads its settings from one schema (${SETTING_NAMES.length} names)`)
t.same(SETTING_NAMES.filter((name) => !documented.has(name)), [], 'every setting has its row in docs/configuration.md')
