/**
 * Profiles are files: the built-in A and B, and a deployment's own named by
 * CMS_PROFILES (a directory or one file), each checked when read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { loadProfiles, profileFile } from '../src/profiles.js'
import { loadSettings } from '../src/settings.js'
import { manifest } from './helpers.js'

t.test('the built-in profiles list the reference namespaces in its order', async (t) => {
  const profiles = loadProfiles()
  for (const name of ['A', 'B']) t.same(profiles[name]!.namespaces, manifest.deployments[name]!.namespaces, name)
  t.same(profiles.B!.options, { 'rollback/v1': { archiveSorting: true }, 'hdrftr/v1': { learnRoutes: true } })
})

t.test("a deployment's profile file, by directory or by file", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-profiles-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  writeFileSync(join(dir, 'Mine.json'), JSON.stringify({ namespaces: ['cms/v2', 'notes/v1'], options: { 'notes/v1': { size: 3 } } }))
  writeFileSync(join(dir, 'notes.txt'), 'not a profile')
  const settings = loadSettings({ CMS_PROFILES: dir, CMS_DEPLOYMENT: 'Mine' })
  t.same(settings.profile, { name: 'Mine', namespaces: ['cms/v2', 'notes/v1'], options: { 'notes/v1': { size: 3 } } })
  t.equal(loadSettings({ CMS_PROFILES: join(dir, 'Mine.json'), CMS_DEPLOYMENT: 'Mine' }).profile.name, 'Mine', 'one file')
  t.equal(loadSettings({ CMS_PROFILES: dir }).profile.name, 'A', 'the built-in ones stay')
  t.equal(profileFile('Mine', dir), join(dir, 'Mine.json'))
  t.match(profileFile('A', dir), /apps\/gateway\/profiles\/A\.json$/)
  t.throws(() => loadSettings({ CMS_DEPLOYMENT: 'Mine' }), /CMS_DEPLOYMENT must be a profile: A, B \(add one with CMS_PROFILES\), got "Mine"/)
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    t.throws(() => loadSettings({ CMS_DEPLOYMENT: name }), /CMS_DEPLOYMENT must be a profile: A, B /, `${name} is not a profile`)
  }
})

t.test('a wrong profile file stops the start naming it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-profiles-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const wrong: Array<[string, string, RegExp]> = [
    ['twice', JSON.stringify({ namespaces: ['cms/v2', 'cms/v2'] }), /twice\.json: \/namespaces Expected array elements to be unique/],
    ['stray', JSON.stringify({ namespaces: ['cms/v2'], options: { 'seo/v1': {} } }), /options for namespaces it does not list: seo\/v1/],
    ['extra', JSON.stringify({ namespaces: ['cms/v2'], routes: [] }), /extra\.json: \/routes/],
    ['broken', '{"namespaces": [', /broken\.json: /],
    ['bad-ns', JSON.stringify({ namespaces: ['/cms/v2'] }), /bad-ns\.json: \/namespaces\/0/]
  ]
  for (const [name, text, message] of wrong) {
    writeFileSync(join(dir, `${name}.json`), text)
    t.throws(() => loadSettings({ CMS_PROFILES: join(dir, `${name}.json`) }), { message: new RegExp(`^CMS_PROFILES must be .*${message.source}`) }, name)
  }
  t.throws(() => loadSettings({ CMS_PROFILES: join(dir, 'absent') }), /does not exist/)
})
