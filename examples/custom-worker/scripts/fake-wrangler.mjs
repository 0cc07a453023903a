#!/usr/bin/env node
// A stand-in for `wrangler`, to rehearse `npm run deploy` without a Cloudflare account:
//   EDGEPLAN_WRANGLER=$PWD/scripts/fake-wrangler.mjs npm run deploy
// It answers `d1 list --json`, `kv namespace list` and `queues list` in wrangler 4's formats from a
// pretend account in a JSON file ($STUB_STATE, default fake-wrangler-account.json here; delete it to
// start from an empty account), records each `create` there, and lets everything else (migrations,
// the deploy) succeed without doing it. $STUB_LOG, when set, gets every call as a JSON line.
// $STUB_FAIL makes the command starting so fail (exit 3), as wrangler does without a login.
import fs from 'node:fs';

const args = process.argv.slice(2);
if (process.env.STUB_LOG) fs.appendFileSync(process.env.STUB_LOG, JSON.stringify(args) + '\n');
const file = process.env.STUB_STATE || 'fake-wrangler-account.json';
const state = fs.existsSync(file)
  ? JSON.parse(fs.readFileSync(file, 'utf8'))
  : { d1: [], kv: [], queues: [] };
const save = () => fs.writeFileSync(file, JSON.stringify(state));
const id = (n) => (state.next = (state.next ?? 0) + 1).toString(16).padStart(n, '0');
const cmd = args
  .filter((a) => !a.startsWith('-'))
  .slice(0, 3)
  .join(' ');

if (process.env.STUB_FAIL && cmd.startsWith(process.env.STUB_FAIL)) {
  console.error(`✘ [ERROR] fake wrangler: ${cmd} fails ($STUB_FAIL)`);
  process.exit(3);
} else if (cmd === 'd1 list') console.log(JSON.stringify(state.d1, null, 2));
else if (cmd === 'kv namespace list') console.log(JSON.stringify(state.kv, null, '  '));
else if (cmd.startsWith('queues list')) {
  // One page, as wrangler's own list answers (--page, from 1; $STUB_QUEUE_PAGE queues a page).
  const size = Number(process.env.STUB_QUEUE_PAGE ?? 1000);
  const page = Number(args[args.indexOf('--page') + 1] ?? 1) || 1;
  const line = (l, m, r) => `${l}${'─'.repeat(34)}${m}${'─'.repeat(12)}${r}`;
  console.log(line('┌', '┬', '┐'));
  console.log(`│ id                               │ name       │`);
  console.log(line('├', '┼', '┤'));
  for (const q of state.queues.slice((page - 1) * size, page * size))
    console.log(`│ ${q.id} │ ${q.name.padEnd(10)} │`);
  console.log(line('└', '┴', '┘'));
} else if (cmd.startsWith('d1 create')) {
  state.d1.push({ uuid: `${id(8)}-0000-4000-8000-000000000000`, name: args[2] });
  save();
  console.log(`✅ Successfully created DB '${args[2]}'`);
} else if (cmd.startsWith('kv namespace create')) {
  state.kv.push({ id: id(32), title: args[3], supports_url_encoding: true });
  save();
  console.log(`🌀 Creating namespace with title "${args[3]}"`);
} else if (cmd.startsWith('queues create')) {
  // As the API refuses a name the account has (code 11009).
  if (state.queues.some((q) => q.name === args[2])) {
    console.error(`✘ [ERROR] A request to the Cloudflare API failed. Queue name already taken [code: 11009]`);
    process.exit(1);
  }
  state.queues.push({ id: id(32), name: args[2] });
  save();
  console.log(`✅ Created queue ${args[2]}.`);
} else console.error(`fake wrangler: ${args.join(' ')} — pretended, nothing done`);
