import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createUser, isRole, listUsers, ROLES } from '@cms/core';
import { argvForParse, parseOrUsage, UsageError, withStore } from '../command.js';
import type { CommandGroup } from '../command.js';

const usage = `Usage:
  cms user create <login> --email <address> --role <role> [--password <password>] [--name <display name>] [--json]
  cms user list [--json]

create  adds a user. --role may be given more than once. Without --password
        a sign-in password is generated and printed once (the sign-in page
        /cms-admin/login needs it; API clients use application passwords:
        see cms app-password --help).
list    prints every user.

Roles: ${ROLES.join(', ')}

Flags:
  --json      print JSON instead of text
  -h, --help  show this help`;

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

function generatedPassword(): string {
  let out = '';
  for (let i = 0; i < 20; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

export const userCommand: CommandGroup = {
  name: 'user',
  summary: 'create and list users (the first administrator, for instance)',
  usage,
  async run(args, ctx) {
    const { values, positionals } = parseOrUsage('user', () =>
      parseArgs({
        args: argvForParse(args),
        options: {
          help: { type: 'boolean', short: 'h' },
          json: { type: 'boolean' },
          email: { type: 'string' },
          role: { type: 'string', multiple: true },
          password: { type: 'string' },
          name: { type: 'string' },
        },
        allowPositionals: true,
      }),
    );
    const [action, ...rest] = positionals;
    if (values.help || action === 'help') {
      ctx.out(usage);
      return 0;
    }
    switch (action) {
      case 'create': {
        if (rest.length !== 1) throw new UsageError('usage: cms user create <login> --email <address> --role <role>', 'user');
        if (values.email === undefined) throw new UsageError('--email is required', 'user');
        if (values.role === undefined || values.role.length === 0) throw new UsageError(`--role is required (one of ${ROLES.join(', ')})`, 'user');
        // Checked before the database is opened.
        const unknown = values.role.find((r) => !isRole(r));
        if (unknown !== undefined) throw new UsageError(`The role ${unknown} does not exist. Roles: ${ROLES.join(', ')}`, 'user');
        const generated = values.password === undefined ? generatedPassword() : undefined;
        const user = await withStore(ctx, (store) =>
          createUser(store, {
            login: rest[0]!,
            email: values.email!,
            roles: values.role!,
            password: values.password ?? generated,
            displayName: values.name,
          }),
        );
        if (values.json) {
          ctx.out(JSON.stringify({ id: user.id, login: user.login, email: user.email, roles: user.roles, ...(generated ? { password: generated } : {}) }));
          return 0;
        }
        ctx.out(`Created user ${user.id} "${user.login}" (${user.roles.join(', ') || 'no role'}).`);
        if (generated) ctx.out(`Sign-in password (shown once): ${generated}`);
        ctx.out(`Next: cms app-password create ${user.login} "<application name>"`);
        return 0;
      }
      case 'list': {
        if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`, 'user');
        const { users } = await withStore(ctx, (store) => listUsers(store, { orderby: 'id', limit: 1_000_000 }));
        if (values.json) {
          ctx.out(JSON.stringify(users.map((u) => ({ id: u.id, login: u.login, email: u.email, name: u.displayName, roles: u.roles, registered: u.registered.toISOString() }))));
          return 0;
        }
        if (users.length === 0) {
          ctx.out('No users yet. Create the first administrator with: cms user create <login> --email <address> --role administrator');
          return 0;
        }
        ctx.out(table([
          ['ID', 'LOGIN', 'EMAIL', 'ROLES', 'REGISTERED'],
          ...users.map((u) => [String(u.id), u.login, u.email, u.roles.join(','), u.registered.toISOString().slice(0, 19)]),
        ]));
        return 0;
      }
      case undefined:
        throw new UsageError('missing subcommand (create or list)', 'user');
      default:
        throw new UsageError(`unknown subcommand "${action}" (expected create or list)`, 'user');
    }
  },
};
