/**
 * Seeding. The administrator goes through the real CLI; posts go straight in
 * with one `generate_series` insert (a million rows in well under a minute),
 * which is the documented fast path for large data sets. One post in a
 * thousand mentions "needle" so the search scenario has a few matches.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface Admin { id: number, login: string, password: string }

function cli (databaseUrl: string, args: string[]): string {
  return execFileSync('node', ['--import', 'tsx', 'apps/cli/src/main.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: 'utf8'
  })
}

export async function createAdmin (databaseUrl: string): Promise<Admin> {
  cli(databaseUrl, ['migrate'])
  cli(databaseUrl, ['user', 'create', 'bench', '--email', 'bench@example.com', '--role', 'administrator'])
  const { password } = JSON.parse(cli(databaseUrl, ['app-password', 'create', 'bench', 'bench', '--json'])) as { password: string }
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ id: number }>('select id from users where login = $1', ['bench'])
    return { id: rows[0]!.id, login: 'bench', password }
  } finally {
    await client.end()
  }
}

export async function seedPosts (databaseUrl: string, count: number, author: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query(`
      insert into posts (type, author, status, date_gmt, modified_gmt, slug, title, content, excerpt, guid)
      select 'post', $2, 'publish',
             timestamp with time zone '2020-01-01 00:00:00+00' + make_interval(mins => g),
             timestamp with time zone '2020-01-01 00:00:00+00' + make_interval(mins => g),
             'post-' || g,
             'Post number ' || g,
             '<p>This is the body of post ' || g || '. ' ||
               case when g % 1000 = 0 then 'It hides a needle. ' else '' end ||
               'Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>',
             '',
             ''
      from generate_series(1, $1::int) as g`, [count, author])
    await client.query('analyze posts')
  } finally {
    await client.end()
  }
}
