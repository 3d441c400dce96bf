#!/usr/bin/env node
// The soak's scripted agent: it behaves like a real one, chosen per turn by a plan the soak writes (soak/plan.json,
// one behaviour per turn number, deterministic for a seed). It finds its loopx and todo in the environment loopx
// run gives every host (LOOPX_TURN, LOOPX_TODO, LOOPX_GOAL, LOOPX_AGENT), and SOAK_LOOPX. Behaviours:
//   ship      works a while, records evidence (runs the goal's acceptance check when it has one), ships
//   linger    ships, then stays alive a second or two (a host still exiting)
//   chatty    ships, printing a line every 15 ms meanwhile (real agents print all the time)
//   progress  records evidence and gives the todo back with a note
//   monitor   hands the waiting to loopx (a timer, or a check on a flag file the soak's person creates) and exits
//   gate      asks a person and exits;  block  blocks the todo and exits
//   crash     prints, exits 1 without writing anything;  hang  records evidence, then never exits by itself
// Every run appends "start|end <turn> <pid> <epoch ms> [exit code]" to soak/agents.log: the audit reads when each
// agent ended.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = process.env.LOOPX_ROOT;
const turn = process.env.LOOPX_TURN;
const todo = process.env.LOOPX_TODO;
const agentsLog = join(root, 'soak', 'agents.log');
const mark = (what, code = '') =>
  appendFileSync(agentsLog, `${what} ${turn} ${process.pid} ${Date.now()}${code === '' ? '' : ` ${code}`}\n`);
mark('start');
let ended = false;
const end = (code) => {
  if (ended) return;
  ended = true;
  mark('end', code);
};
process.on('exit', (code) => end(code));
process.on('SIGTERM', () => {
  end(143);
  process.exit(143);
});

const plan = JSON.parse(readFileSync(join(root, 'soak', 'plan.json'), 'utf8'));
const n = Number(turn.slice(1));
const behaviour = plan.behaviours[(n - 1) % plan.behaviours.length];
const hasCheck = plan.checkGoals.includes(process.env.LOOPX_GOAL);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const workMs = 200 + ((n * 7919) % 800);

/** One loopx call as this agent, on this Node; a refusal is printed, never fatal (a lease may be gone). */
function loopx(...args) {
  try {
    return JSON.parse(
      execFileSync(process.execPath, [process.env.SOAK_LOOPX, ...args, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
    );
  } catch (error) {
    const out = String(error.stdout ?? '');
    console.log(`loopx ${args.slice(0, 2).join(' ')} refused: ${out.trim().slice(0, 200)}`);
    return JSON.parse(out || '{"ok":false}');
  }
}

async function evidence() {
  mkdirSync(join(root, 'reports'), { recursive: true });
  writeFileSync(join(root, 'reports', `${todo}.txt`), `${todo}: checks pass (turn ${turn})\n`);
  if (hasCheck) loopx('evidence', 'run', '--todo', todo, '--check');
  else
    loopx(
      'evidence',
      'add',
      '--todo',
      todo,
      '--kind',
      'test',
      '--summary',
      `${todo} checked in ${turn}`,
      '--artifact',
      `reports/${todo}.txt`,
    );
}

console.log(`soak agent ${process.env.LOOPX_AGENT} on ${todo} (${turn}): ${behaviour}`);
let chatter;
if (behaviour === 'chatty') {
  let i = 0;
  chatter = setInterval(() => console.log(`${turn} thinking out loud, line ${++i}`), 15);
}
await sleep(workMs);
switch (behaviour) {
  case 'crash':
    console.log('something went wrong; giving up');
    process.exit(1);
    break;
  case 'hang':
    await evidence();
    console.log('waiting for something that never comes');
    setInterval(() => {}, 1 << 30);
    break;
  case 'gate':
    loopx('gate', 'ask', '--todo', todo, '--question', `May ${turn} change the public API for ${todo}?`);
    break;
  case 'block':
    loopx('todo', 'block', todo, '--reason', `${turn} needs credentials it does not have`);
    break;
  case 'monitor':
    if (n % 2) loopx('monitor', 'add', '--todo', todo, '--after', '4s', '--note', 'the build takes a while');
    else loopx('monitor', 'add', '--todo', todo, '--check', `test -f soak/flags/${todo}`, '--every', '10s', '--note', 'CI run started');
    break;
  case 'progress':
    await evidence();
    loopx('todo', 'release', todo, '--note', 'first half done; the rest next turn');
    break;
  default: {
    await evidence();
    loopx('todo', 'ship', todo);
    console.log(`shipped ${todo}`);
    if (chatter) clearInterval(chatter);
    if (behaviour === 'linger') await sleep(1000 + (n % 1000));
  }
}
if (chatter) clearInterval(chatter);
