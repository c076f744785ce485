import { PGlite } from '@electric-sql/pglite'
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
let c = cpu(); let w = performance.now()
const lap = (name: string) => { const c2 = cpu(), w2 = performance.now(); console.log(name, 'cpu ms', Math.round(c2 - c), 'wall ms', Math.round(w2 - w)); c = c2; w = w2 }
const a = await PGlite.create(); lap('initdb memory')
await a.exec('create table t (id int)')
const dump = await a.dumpDataDir('none'); lap('dump ' + dump.size)
const b = await PGlite.create({ loadDataDir: dump }); lap('load 1')
const d = await PGlite.create({ loadDataDir: dump }); lap('load 2')
console.log((await d.query('select count(*) from t')).rows)
const e = await PGlite.create(); lap('initdb 2')
