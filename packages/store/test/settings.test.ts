import t from 'tap';
import { storeSettingsFromEnv } from '../src/index.js';

t.test('storeSettingsFromEnv', async (t) => {
  t.same(storeSettingsFromEnv({ INIT_CWD: '/repo' }), { dataDir: '/repo/.data' });
  t.same(storeSettingsFromEnv({ INIT_CWD: '/repo', CMS_DATA_DIR: 'var/db' }), { dataDir: '/repo/var/db' });
  t.same(storeSettingsFromEnv({ INIT_CWD: '/repo', CMS_DATA_DIR: '/abs/dir' }), { dataDir: '/abs/dir' });
  t.equal(storeSettingsFromEnv({}).dataDir, `${process.cwd()}/.data`, 'falls back to cwd');
  t.same(storeSettingsFromEnv({ INIT_CWD: '/repo', DATABASE_URL: 'postgres://u@h/db', CMS_DB_POOL_SIZE: '4' }), {
    dataDir: '/repo/.data',
    databaseUrl: 'postgres://u@h/db',
    poolSize: 4,
  });
  t.same(storeSettingsFromEnv({ INIT_CWD: '/repo', DATABASE_URL: '' }), { dataDir: '/repo/.data' }, 'empty url = unset');
  t.throws(() => storeSettingsFromEnv({ CMS_DB_POOL_SIZE: 'lots' }), RangeError);
});
