import { PGlite } from '@electric-sql/pglite'
import { readFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
const rss = () => { const s = readFileSync('/proc/self/status', 'utf8'); return `rss ${Math.round(/VmRSS:\s+(\d+)/.exec(s)[1]/1024)} MB hwm ${Math.round(/VmHWM:\s+(\d+)/.exec(s)[1]/1024)} MB` }
const dir = process.argv[2] ?? join(mkdtempSync(join(tmpdir(), 'pgl-')), 'pgdata')
const extra = process.argv[3] ? JSON.parse(process.argv[3]) : {}
console.log('start', rss())
let t = Date.now()
const db = await PGlite.create({ dataDir: dir, ...extra })
console.log('created', Date.now() - t, 'ms', rss())
const r = await db.query("select name, setting, unit from pg_settings where name in ('shared_buffers','work_mem','maintenance_work_mem','temp_buffers','wal_buffers','effective_cache_size')")
console.log(JSON.stringify(r.rows))
global.gc?.(); await new Promise(r => setTimeout(r, 500)); console.log('after gc', rss())
await db.close()
console.log(dir)
