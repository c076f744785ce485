// Creates an embedded (PGlite) database directory, then exits: run by
// openStore() in a child process on a first start. PGlite's initdb runs a
// second PostgreSQL and the initdb program in WebAssembly, whose memories
// (about 500 MB) would otherwise stay in the service's process for good.
// Plain JavaScript so it starts without a TypeScript loader.
//
//   node pglite-create.mjs <pgdata> '<start params as JSON>'
import { PGlite } from '@electric-sql/pglite'

const [dataDir, params] = process.argv.slice(2)
const db = await PGlite.create({ dataDir, startParams: JSON.parse(params ?? '[]') })
await db.close()
