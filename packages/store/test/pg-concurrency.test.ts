// PostgreSQL only: processes that start at once migrate once (advisory lock).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { sql } from 'drizzle-orm';
import { migrate, openStore } from '../src/index.js';
import { createTestDatabase, testDatabaseUrl } from '../src/testing.js';

const serverUrl = testDatabaseUrl();

t.test('concurrent migrate on PostgreSQL', { skip: serverUrl ? false : 'CMS_TEST_DATABASE_URL not set' }, async (t) => {
  const database = await createTestDatabase();
  const url = new URL(database.url);

  // Several stores (pools) in this process...
  const stores = await Promise.all([1, 2, 3, 4].map(() => openStore({ databaseUrl: url.toString(), poolSize: 1 })));
  t.teardown(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await database.drop();
  });
  // ...and two separate processes, all at once.
  const script = fileURLToPath(new URL('./fixtures/migrate-once.ts', import.meta.url));
  const child = () =>
    new Promise<number>((resolve, reject) => {
      const p = spawn(process.execPath, ['--import=tsx', script, url.toString()], { stdio: 'inherit' });
      p.on('error', reject);
      p.on('exit', (code) => resolve(code ?? 1));
    });
  const [codes] = await Promise.all([Promise.all([child(), child()]), ...stores.map((s) => migrate(s))]);
  t.same(codes, [0, 0], 'child processes migrated');

  const rows = await stores[0]!.execute<{ hash: string; n: number }>(
    sql`select hash, count(*)::int as n from drizzle.__drizzle_migrations group by hash`,
  );
  t.ok(rows.length >= 1);
  t.ok(rows.every((r) => r.n === 1), 'each migration recorded once');
  t.equal(await stores[0]!.ping(), true);
});
