/**
 * Seeding. The administrator goes through the real CLI; posts go straight in
 * with one `generate_series` insert (a million rows in well under a minute),
 * which is the documented fast path for large data sets (see seedPosts).
 *
 * The rows look like posts the service wrote itself: the `guid` is the plain
 * permalink, every post is in the default category (id 1, whose count is set
 * to match), and one post in a thousand mentions "needle" so the search
 * scenario has a few matches.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface Admin { id: number, login: string, password: string }

function cli (databaseUrl: string, args: string[], root: string): string {
  return execFileSync('node', ['--import', 'tsx', 'apps/cli/src/main.ts', ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: 'utf8'
  })
}

/** The database migrated and its administrator made by the CLI of the checkout at `root` (this one by default). */
export async function createAdmin (databaseUrl: string, root = ROOT): Promise<Admin> {
  cli(databaseUrl, ['migrate'], root)
  cli(databaseUrl, ['user', 'create', 'bench', '--email', 'bench@example.com', '--role', 'administrator'], root)
  const { password } = JSON.parse(cli(databaseUrl, ['app-password', 'create', 'bench', 'bench', '--json'], root)) as { password: string }
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ id: number }>('select id from users where login = $1', ['bench'])
    return { id: rows[0]!.id, login: 'bench', password }
  } finally {
    await client.end()
  }
}

/**
 * Inserts `count` published posts by `author`, one a minute from 2020-01-01,
 * with ids from the table's own sequence. `home` is the site's address (the
 * guid is `{home}/?p={id}`, as the service writes it).
 *
 * The fast path for large data sets: the secondary indexes of the two tables
 * are dropped, the rows go in with one `insert ... select` each, the indexes
 * are built again from their own definitions (a build is much faster than a
 * million single insertions, the trigram ones above all), and a VACUUM
 * ANALYZE leaves the tables as a long-running site has them (statistics,
 * visibility map, no pending trigram entries).
 */
export async function seedPosts (databaseUrl: string, count: number, author: number, home: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query('begin')
    const { rows: indexes } = await client.query<{ name: string, definition: string }>(`
      select indexname as name, indexdef as definition from pg_indexes i
      where schemaname = current_schema() and tablename in ('posts', 'term_relationships')
        and not exists (select 1 from pg_constraint c where c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`)
    for (const index of indexes) await client.query(`drop index "${index.name.replace(/"/g, '""')}"`)
    await client.query(`
      insert into posts (id, type, author, status, date_gmt, modified_gmt, slug, title, content, excerpt, guid)
      select id, 'post', $2, 'publish', at, at,
             'post-' || g,
             'Post number ' || g,
             '<p>This is the body of post ' || g || '. ' ||
               case when g % 1000 = 0 then 'It hides a needle. ' else '' end ||
               'Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>',
             '',
             $3 || '/?p=' || id
      from (
        select nextval(pg_get_serial_sequence('posts', 'id')) as id, g,
               timestamp with time zone '2020-01-01 00:00:00+00' + make_interval(mins => g) as at
        from generate_series(1, $1::int) as g
      ) s`, [count, author, home])
    await client.query('insert into term_relationships (post_id, term_id) select id, 1 from posts where type = \'post\'')
    await client.query('update terms set count = (select count(*) from posts where type = \'post\' and status = \'publish\') where id = 1')
    // The posts' lifecycle events (a trigger writes one per post, where the checkout has them) were
    // delivered long ago on the site the seed stands for: left pending, the service's worker would
    // deliver them during the first measured runs, and each of its commits would renew the commit
    // horizon that every kept read depends on.
    const { rows: [events] } = await client.query<{ table: string | null }>("select to_regclass('cms_events')::text as table")
    if (events?.table != null) await client.query('delete from cms_events where txid = txid_current()')
    await client.query("set local maintenance_work_mem = '256MB'")
    for (const index of indexes) await client.query(index.definition)
    await client.query('commit')
    await client.query('vacuum analyze posts, term_relationships, terms')
  } catch (err) {
    await client.query('rollback').catch(() => {})
    throw err
  } finally {
    await client.end()
  }
}
