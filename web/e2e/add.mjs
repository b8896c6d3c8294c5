// The page's "Add a player" in Debian's Chromium (headless, Playwright):
//   node e2e/add.mjs --base http://127.0.0.1:PORT --pgn FILE --pgn-user NAME [--shots DIR]
// against a `mirror serve` on an empty store whose Chess.com is the fake one of the tests
// (serving the recorded games of hikaru). Adds hikaru from Chess.com, fetches his new
// games (none), adds NAME from an uploaded PGN file; each figure the page shows is checked
// against the API. Any console error fails the run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { arg, launch, runChecks } from './browser.mjs';

const base = arg('base');
const pgn = arg('pgn');
const pgnUser = arg('pgn-user');
/** A zstd PGN whose player is spelt three ways (Kasparov's games). */
const spellings = arg('spellings');
const shots = arg('shots');
if (!base || !pgn || !pgnUser || !spellings) {
  console.error('usage: node e2e/add.mjs --base URL --pgn FILE --pgn-user NAME --spellings FILE [--shots DIR]');
  process.exit(2);
}
if (shots) fs.mkdirSync(shots, { recursive: true });

const api = async p => {
  const r = await fetch(`${base}${p}`);
  assert.equal(r.status, 200, `${p}: ${r.status}`);
  return r.json();
};

const errors = [];
const { context, close } = await launch();
const page = await context.newPage();
page.on('console', m => {
  if (m.type() === 'error') errors.push(`console: ${m.text()}`);
});
page.on('pageerror', e => errors.push(`page error: ${e.message}`));
const shot = async name => {
  if (shots) await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
};

/** Clicks `selector` to start a job, the last job's panel cleared first (so that waiting
 * for an ended job cannot find the previous one). */
async function start(selector) {
  await page.evaluate(() => document.querySelector('.add-out')?.replaceChildren());
  await page.click(selector);
}

/** The job the page followed, once it ended, and the API's account of it. */
async function finished() {
  await page.waitForSelector(
    '#add-progress[data-state=done], #add-progress[data-state=failed], #add-progress[data-state=cancelled]',
    { timeout: 60_000 },
  );
  const jobs = await api('/api/v1/imports');
  const job = jobs[0];
  const shown = {
    state: await page.getAttribute('#add-progress', 'data-state'),
    read: await page.textContent('#add-progress [data-count=read]'),
    fresh: await page.textContent('#add-progress [data-count=new]'),
  };
  assert.deepEqual(shown, {
    state: job.state,
    read: `${job.gamesRead.toLocaleString('en-US')} games read`,
    fresh: `${job.gamesNew.toLocaleString('en-US')} new`,
  });
  return job;
}

const checks = [];
const check = (name, f) => checks.push({ name, f });

check('an empty store opens on "Add a player"', async () => {
  await page.goto(`${base}/`);
  await page.waitForSelector('#add-kind');
  assert.equal(new URL(page.url()).searchParams.get('view'), 'add');
  assert.equal(await page.textContent('#player option'), 'no players yet');
  assert.equal(await page.isVisible('#add-file'), false);
  assert.equal(await page.isVisible('#add-token'), false, 'no token field for the owner');
});

/** Games kept by the cancelled import (the next import of the account adds the rest). */
let keptByCancel = 0;

check('an import is cancelled from the page: what it wrote stays', async () => {
  await page.selectOption('#add-kind', 'chesscom');
  await page.fill('#add-name', 'hikaru');
  await start('#add-go');
  await page.waitForSelector('#add-progress[data-state=running] #add-cancel');
  await page.click('#add-cancel');
  const job = await finished();
  assert.equal(job.state, 'cancelled');
  assert.equal(job.monthsDone, 1, 'stopped after the month it was writing');
  assert.ok(job.gamesNew > 0 && job.gamesNew < 214, `${job.gamesNew} games kept`);
  assert.match(await page.textContent('#add-progress .status'), /cancelled/);
  assert.equal(await page.$('#add-cancel'), null, 'no cancel button once it ended');
  keptByCancel = job.gamesNew;
  await page.goto(`${base}/?view=add`);
  await page.waitForSelector('#add-kind');
});

check('a Chess.com account is imported with its months and games shown', async () => {
  await page.fill('#add-name', 'hikaru');
  await start('#add-go');
  const job = await finished();
  assert.equal(job.state, 'done');
  assert.equal(job.what, 'Chess.com hikaru');
  assert.equal(job.gamesNew, 214 - keptByCancel, 'the rest after the cancelled import');
  assert.equal((await page.textContent('#add-progress .months')).trim(), '2 of 2 months');
  // The owner's page got the token from its server (the import needed it): nothing typed.
  assert.equal(await page.isVisible('#add-token'), false, 'no token typed by the owner');
  assert.ok(await page.evaluate(() => sessionStorage.getItem('mirror-token')), 'the token kept for this tab');
  const without = await fetch(`${base}/api/v1/imports`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"user":"hikaru"}' });
  assert.equal(without.status, 401, 'an import without the token is refused on loopback too');
  await shot('add-chesscom');
  const players = await api('/api/v1/players');
  assert.deepEqual(players, [{ name: 'hikaru', games: 214 }]);
  await page.waitForSelector('#player option[value="hikaru"]', { state: 'attached' });
  assert.equal(await page.textContent('#player option[value="hikaru"]'), 'hikaru (214 games)');
  await page.click('#add-explore');
  await page.waitForSelector('table.moves tbody tr');
  const explore = await api('/api/v1/explore?user=hikaru');
  const rows = await page.$$eval('table.moves tbody tr', trs => trs.map(tr => tr.dataset.uci));
  assert.deepEqual(rows, explore.moves.map(m => m.uci));
});

check('"Fetch the new games" of the player finds none', async () => {
  await page.click('#nav a[data-view=add]');
  await start('#add-sync');
  const job = await finished();
  assert.equal(job.state, 'done');
  assert.equal(job.what, 'new games of hikaru');
  assert.equal(job.gamesNew, 0);
  assert.ok(job.log.some(l => l.includes('2 already complete')), job.log.join('\n'));
});

check('a PGN file is uploaded and its player added', async () => {
  await page.selectOption('#add-kind', 'pgn');
  assert.equal(await page.isVisible('#add-file'), true);
  await page.setInputFiles('#add-file', pgn);
  await page.fill('#add-name', pgnUser);
  await start('#add-go');
  const job = await finished();
  assert.equal(job.state, 'done');
  assert.equal(job.player, pgnUser);
  const players = await api('/api/v1/players');
  const added = players.find(p => p.name === pgnUser);
  assert.ok(added, JSON.stringify(players));
  assert.equal(added.games, job.gamesNew);
  await page.waitForSelector(`#player option[value="${pgnUser}"]`, { state: 'attached' });
  await shot('add-pgn');
});

check('a name Chess.com cannot have is refused on the page, by name', async () => {
  await page.selectOption('#add-kind', 'chesscom');
  await page.fill('#add-name', 'no/such');
  await start('#add-go');
  await page.waitForSelector('.add-out p.error');
  assert.match(await page.textContent('.add-out p.error'), /Chess\.com/);
  const jobs = await api('/api/v1/imports');
  assert.equal(jobs.length, 4, 'no job for a refused name (the cancelled import, the Chess.com one, the sync, the PGN)');
  // The refused request's 400 is in the console as a failed load; nothing else.
  errors.splice(0, errors.length, ...errors.filter(e => !e.includes('400')));
});

check('a compressed PGN with two spellings: the page says what it left out and adds the other on a click', async () => {
  await page.goto(`${base}/?view=add`);
  await page.waitForSelector('#add-kind');
  await page.selectOption('#add-kind', 'pgn');
  assert.match(await page.getAttribute('#add-file', 'accept'), /\.zst/);
  await page.fill('#add-name', 'Kasparov, Gary');
  await page.setInputFiles('#add-file', spellings);
  // Before the import, the page reads the names in the (zstd) file and suggests the
  // spellings that look like the name typed; none is ticked unless asked.
  await page.waitForSelector('#add-spellings input.spelling');
  assert.match(await page.textContent('#add-own-games'), /“Kasparov, Gary” plays in 1,563 games of the 1,979 games\./);
  const suggested = await page.$$eval('#add-spellings li', lis => lis.map(li => li.textContent.trim()));
  assert.deepEqual(suggested, ['“Kasparov,G”, 413 games', '“Kasparov, G.”, 2 games']);
  await shot('add-spellings');
  await start('#add-go');
  const first = await finished();
  assert.equal(first.gamesNew, 1563);
  assert.equal(first.leftOut.games, 415);
  const said = await page.textContent('#add-left-out');
  assert.match(said, /415 games were left out: neither White nor Black is called Kasparov, Gary/);
  assert.doesNotMatch(said, /--/, 'words for the page, no command-line flag');
  const names = await page.$$eval('#add-left-out li', lis => lis.map(li => li.textContent));
  assert.match(names[0], /“Kasparov,G” in 413 games/);
  await page.click('#add-left-out button.add-spelling[data-name="Kasparov,G"]');
  await page.waitForSelector('#add-left-out', { state: 'detached' });
  const second = await finished();
  assert.equal(second.gamesNew, 413, 'the games of the other spelling, once');
  const players = await api('/api/v1/players');
  assert.equal(players.find(p => p.name === 'Kasparov, Gary').games, 1563 + 413);
  // The third spelling, ticked among the suggestions: its two games join the player.
  await page.click('#add-spellings input.spelling[data-name="Kasparov, G."]');
  assert.equal(await page.inputValue('#add-alias'), 'Kasparov, G.');
  await start('#add-go');
  const third = await finished();
  assert.equal(third.gamesNew, 2);
  const after = await api('/api/v1/players');
  assert.equal(after.find(p => p.name === 'Kasparov, Gary').games, 1563 + 413 + 2);
});

await runChecks(checks, errors, shot, close, 'add-');
