// `cms migrate` and `cms option` in-process against a test store: every
// installed package's migrations run, and the options packages declare are
// read and written with their schemas checked (the builder's
// `builder_allow_tracking`, a boolean).
import t from 'tap';
import { inProcess } from './helpers.js';
import { openTestStore } from '@cms/store/testing';

t.test('cms migrate runs every installed package\'s migrations', async (t) => {
  const db = await openTestStore({ migrate: false });
  t.teardown(() => db.close());
  const { exec } = inProcess(db);
  const migrated = await exec(['migrate']);
  t.equal(migrated.code, 0, migrated.stderr);
  t.same(await db.execute('select count(*)::int as n from drizzle.__migrations_cms_builder'), [{ n: 2 }], "the builder's migrations");
  t.same(await db.execute("select to_regclass('public.nps_surveys') is not null as present"), [{ present: true }]);
  t.equal((await exec(['migrate'])).code, 0, 'again: nothing to do');

  t.test('cms option', async (t) => {
    const list = await exec(['option', 'list']);
    t.equal(list.code, 0, list.stderr);
    t.match(list.stdout, /^builder_allow_tracking\t@cms\/builder\tfalse\t/m);
    t.same(await exec(['option', 'get', 'builder_allow_tracking']), { code: 0, stdout: 'false\n', stderr: '' }, 'the default');
    t.same(await exec(['option', 'set', 'builder_allow_tracking', 'true']), { code: 0, stdout: 'true\n', stderr: '' });
    t.same(await db.execute("select value from options where name = 'builder_allow_tracking'"), [{ value: true }], 'stored as JSON');
    t.equal((await exec(['option', 'get', 'builder_allow_tracking'])).stdout, 'true\n');

    const bad = await exec(['option', 'set', 'builder_allow_tracking', 'maybe']);
    t.equal(bad.code, 1);
    t.match(bad.stderr, /^cms: Invalid value for option builder_allow_tracking: Expected boolean\n$/);
    t.equal((await exec(['option', 'get', 'builder_allow_tracking'])).stdout, 'true\n', 'nothing written');

    t.same(await exec(['option', 'reset', 'builder_allow_tracking']), { code: 0, stdout: '', stderr: '' });
    t.equal((await exec(['option', 'get', 'builder_allow_tracking'])).stdout, 'false\n');

    for (const [args, message] of [
      [['option', 'get', 'posts_per_page'], /unknown option "posts_per_page" \(see: cms option list\)/],
      [['option', 'set', 'builder_allow_tracking'], /expected: cms option set <name> <value>/],
      [['option', 'set', 'builder_allow_tracking', 'a', 'b'], /too many arguments/],
      [['option', 'frob'], /unknown subcommand "frob"/],
      [['option'], /missing subcommand/],
    ] as const) {
      const r = await exec([...args]);
      t.equal(r.code, 2, args.join(' '));
      t.match(r.stderr, message);
    }
    t.match((await exec(['option', '--help'])).stdout, /cms option set <name> <value>/);
  });
});
