// Long parameters handed to PostgreSQL's socket as they are (pg-bind.ts,
// issue 27): the Bind message written in parts is pg-protocol's byte for
// byte, the long bytes are the very buffers given (no copy on this thread),
// and what is stored is what the text would store, on PostgreSQL and PGlite.
// Counts writes and bytes; never times anything.
import { createRequire } from 'node:module'
import t from 'tap'
import { sql } from 'drizzle-orm'
import { customType, integer, pgTable, text as pgText } from 'drizzle-orm/pg-core'
import { JsonText, Utf8Text, jsonb } from '../src/columns.js'
import { bindCounts, bindLongParamsApart, bindParts, LONG_PARAM_BYTES } from '../src/pg-bind.js'
import { openTestStore, testDatabaseUrl } from '../src/testing.js'

// pg's own serializer and value mapping (pg-protocol is pg's dependency, not the store's).
const requirePg = createRequire(createRequire(import.meta.url).resolve('pg'))
const { serialize } = requirePg('pg-protocol') as { serialize: { bind: (config: unknown) => Buffer } }
const { prepareValue } = requirePg('./utils.js') as { prepareValue: (value: unknown, seen?: unknown) => unknown }

const long = (unit: string, bytes: number): string => unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)))
const text = long('Zoë <b>bold</b> — ✓ 𝄞 ', 300_000)
const jsonText = JSON.stringify(long('a "quoted" é\n', 200_000))
const binary = Buffer.alloc(100_000, 7)
const bytea = customType<{ data: Buffer, driverData: Buffer }>({ dataType: () => 'bytea' })

t.test('a Bind message with long parameters: pg-protocol\'s bytes, the long ones not copied', async (t) => {
  const utf8 = Buffer.from(text, 'utf8')
  const values = [1, null, 'short', new Utf8Text(text, utf8), binary, new Utf8Text('é', Buffer.from('é')), new Date(0), [1, 2], undefined]
  const config = { portal: '', statement: 'named_1', binary: false, values, valueMapper: prepareValue }
  const { parts, given } = bindParts(config)!
  // pg-protocol sends a Utf8Text's text as the text it is: the same bytes.
  const theirs = serialize.bind({ ...config, values: values.map((v) => v instanceof Utf8Text ? v.text : v) })
  t.ok(Buffer.concat(parts).equals(theirs), `the same ${theirs.length} bytes as pg-protocol's`)
  t.equal(parts.length, 5, 'three parts and the two long parameters')
  t.equal(parts[1], utf8, 'the text\'s bytes are the buffer given')
  t.equal(parts[3], binary, 'the binary value is the buffer given')
  t.equal(given, utf8.length + binary.length)
  t.ok(parts[0]!.length < 200 && parts[2]!.length < 200 && parts[4]!.length < 200, 'the rest is small')

  // Binary results, a portal, a long value last: still pg-protocol's.
  const last = { portal: 'p1', statement: '', binary: true, values: ['x', binary], valueMapper: prepareValue }
  t.ok(Buffer.concat(bindParts(last)!.parts).equals(serialize.bind(last)))
  t.equal(bindParts({ values: ['x', Buffer.alloc(LONG_PARAM_BYTES - 1)], valueMapper: prepareValue }), undefined, 'none long: pg-protocol writes it')
  t.equal(bindParts({ values: [long('x', LONG_PARAM_BYTES)], valueMapper: prepareValue }), undefined, 'a long string is pg-protocol\'s (it has no bytes yet)')
})

t.test('the connection writes the parts in turn, or hands the message to pg-protocol', async (t) => {
  const written: Uint8Array[] = []
  const passed: unknown[] = []
  const connection = {
    stream: { writable: true, write: (chunk: Uint8Array) => { written.push(chunk); return true } },
    bind: (config: unknown) => { passed.push(config) }
  }
  bindLongParamsApart(connection)
  const before = { ...bindCounts }
  connection.bind({ values: ['a', binary], valueMapper: prepareValue })
  t.equal(written.length, 3)
  t.equal(written[1], binary)
  t.same(passed, [])
  t.same({ messages: bindCounts.messages - before.messages, bytes: bindCounts.bytes - before.bytes }, { messages: 1, bytes: binary.length })
  connection.bind({ values: ['a'] })
  t.equal(passed.length, 1, 'a short message goes to pg-protocol')
  connection.stream.writable = false
  written.length = 0
  t.equal(connection.bind({ values: [binary], valueMapper: prepareValue }), false, 'a closed stream takes nothing')
  t.same(written, [])
})

t.test('stored as the texts are, on either database', async (t) => {
  const store = await openTestStore({ migrate: false })
  t.teardown(() => store.close())
  await store.execute('create table long_params (id int primary key, t text, j jsonb, b bytea)')
  const table = pgTable('long_params', { id: integer().primaryKey(), t: pgText(), j: jsonb(), b: bytea() })
  const before = { ...bindCounts }
  const bytes = { text: Buffer.from(text, 'utf8'), json: Buffer.from(jsonText, 'utf8') }
  // The jsonb column writes a JsonText with its bytes as those bytes; a text parameter is given its own.
  await store.db.insert(table).values({ id: 1, t: sql`${new Utf8Text(text, bytes.text)}`, j: new JsonText(jsonText, bytes.json), b: binary })
  await store.execute(sql`insert into long_params values (2, ${text}, ${jsonText}::jsonb, ${binary})`)
  // A short one with bytes, and a JsonText without: as before.
  await store.db.insert(table).values({ id: 3, t: sql`${new Utf8Text('é', Buffer.from('é'))}`, j: new JsonText('{"a":1}') })
  const rows = await store.execute(sql`select id, t, j #>> '{}' as j, md5(b) as b, octet_length(t) as n from long_params order by id`)
  t.equal(rows[0]!.t, text, 'the text as sent')
  t.equal(rows[0]!.n, bytes.text.length)
  t.equal(rows[0]!.j, JSON.parse(jsonText), 'the JSON text as sent')
  t.same(rows[1], { ...rows[0], id: 2 }, 'as the strings themselves store')
  t.same(rows[2], { id: 3, t: 'é', j: '{"a": 1}', b: null, n: 2 }, 'short ones as before')
  const parts = { messages: bindCounts.messages - before.messages, bytes: bindCounts.bytes - before.bytes }
  if (testDatabaseUrl() !== undefined) {
    // Row 1: three long parameters given as bytes; row 2: the binary one (the strings are encoded here).
    t.same(parts, { messages: 2, bytes: bytes.text.length + bytes.json.length + 2 * binary.length }, 'PostgreSQL: the long bytes written apart')
  } else {
    t.same(parts, { messages: 0, bytes: 0 }, 'PGlite takes the texts themselves')
  }
})
