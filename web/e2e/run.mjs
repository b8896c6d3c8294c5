// End-to-end tests of mirror's page in Debian's Chromium (headless, Playwright):
//   node e2e/run.mjs --base http://127.0.0.1:PORT --user NAME [--shots DIR]
// against a running `mirror serve` whose store holds NAME's games. Each check compares
// what the page shows with what the API answers; any console error (a CSP violation, a
// failed request, a script error) fails the run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Chess, normalizeMove } from 'chessops/chess';
import { makeFen } from 'chessops/fen';
import { parsePgn } from 'chessops/pgn';
import { makeSan, parseSan } from 'chessops/san';
import { parseUci } from 'chessops/util';
import { arg, launch, runChecks } from './browser.mjs';

const base = arg('base');
const user = arg('user');
const shots = arg('shots');
if (!base || !user) {
  console.error('usage: node e2e/run.mjs --base URL --user NAME [--shots DIR]');
  process.exit(2);
}
if (shots) fs.mkdirSync(shots, { recursive: true });

const api = async (p, params) => {
  const q = new URLSearchParams(params);
  const r = await fetch(`${base}${p}?${q}`);
  assert.equal(r.status, 200, `${p}?${q}: ${r.status}`);
  return r.json();
};
const pct = x => `${Math.round(x * 100)}%`;
/** A duration as people write it, as the page shows it: 1.2 s, 3 min 20 s, 2 h 5 min, 2 d 4 h. */
function duration(seconds) {
  if (seconds < 59.95) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  const [big, small, names] =
    whole < 3600
      ? [Math.floor(whole / 60), whole % 60, ['min', 's']]
      : whole < 86400
        ? [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), ['h', 'min']]
        : [Math.floor(whole / 86400), Math.floor((whole % 86400) / 3600), ['d', 'h']];
  return small === 0 ? `${big} ${names[0]}` : `${big} ${names[0]} ${small} ${names[1]}`;
}

const MARKS = { inaccuracy: '?!', mistake: '?', blunder: '??' };
const evalText = e =>
  e.mate !== undefined ? `#${e.mate}` : `${e.cp >= 0 ? '+' : '-'}${(Math.abs(e.cp) / 100).toFixed(2)}`;
const games = m => m.white + m.draws + m.black;

/** Replays UCI moves with chessops; fails on an illegal one. */
function replay(ucis) {
  const pos = Chess.default();
  const sans = [];
  for (const uci of ucis) {
    const m = normalizeMove(pos, parseUci(uci));
    assert.ok(pos.isLegal(m), `${uci} is illegal after ${sans.join(' ')}`);
    sans.push(makeSan(pos, m));
    pos.play(m);
  }
  return { pos, sans };
}

/** A legal game that reaches 100 half-moves without a capture or a pawn move and never
 * repeats a position three times (a seeded walk of the pieces, found with chessops). */
function fiftyMoves() {
  let seed = 7;
  const random = n => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const start = ['e2e4', 'e7e5', 'd2d4', 'd7d5', 'c2c3', 'c7c6'];
  const walk = (ucis, seen) => {
    const { pos } = replay(ucis);
    if (pos.halfmoves >= 100) return ucis;
    const moves = [...pos.allDests()].flatMap(([from, tos]) =>
      [...tos].map(to => ({ from, to })).filter(m => pos.board.get(m.from)?.role !== 'pawn' && !pos.board.has(m.to)),
    );
    for (let tries = 0; tries < 6 && moves.length; tries++) {
      const m = moves.splice(random(moves.length), 1)[0];
      const next = pos.clone();
      next.play(m);
      if (next.isEnd()) continue;
      const key = makeFen(next.toSetup()).split(' ').slice(0, 4).join(' ');
      if ((seen.get(key) ?? 0) >= 1) continue;
      seen.set(key, 1);
      const uci = `${'abcdefgh'[m.from % 8]}${Math.floor(m.from / 8) + 1}${'abcdefgh'[m.to % 8]}${Math.floor(m.to / 8) + 1}`;
      const found = walk([...ucis, uci], seen);
      if (found) return found;
      seen.delete(key);
    }
    return undefined;
  };
  const line = walk(start, new Map());
  assert.ok(line, 'a fifty-move line exists');
  return line;
}

const errors = [];
const { context, close } = await launch();
const page = await context.newPage();
page.on('console', m => {
  if (m.type() === 'error') errors.push(`console: ${m.text()}`);
});
page.on('pageerror', e => errors.push(`page error: ${e.message}`));
const movesInUrl = () => {
  const v = new URL(page.url()).searchParams.get('moves');
  return v ? v.split(',') : [];
};
const shot = async name => {
  if (shots) await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
};

/** The explore table as the page shows it, against the API's answer for the same view. */
async function tableMatchesApi(params) {
  const want = await api('/api/v1/explore', params);
  await page.waitForFunction(
    n => document.querySelectorAll('table.moves tbody tr').length === n,
    want.moves.length,
    { timeout: 10_000 },
  );
  const rows = await page.$$eval('table.moves tbody tr', trs =>
    trs.map(tr => ({
      uci: tr.dataset.uci,
      san: tr.querySelector('.san').firstChild.textContent,
      mark: tr.querySelector('.san .judgement')?.textContent ?? null,
      eval: tr.querySelector('.eval')?.textContent ?? null,
      games: tr.querySelector('.games').textContent,
      score: tr.querySelector('.score').firstChild.textContent,
      interval: tr.querySelector('.score small').textContent.trim(),
      few: !!tr.querySelector('.badge'),
      perf: tr.querySelector('.perf').textContent,
      opp: tr.querySelector('.opp').textContent,
      last: tr.querySelector('.last').textContent,
      time: tr.querySelector('.time').textContent,
    })),
  );
  assert.deepEqual(
    rows,
    want.moves.map(m => ({
      uci: m.uci,
      san: m.san,
      mark: m.judgement ? MARKS[m.judgement] : null,
      eval: want.moves.some(x => x.eval) ? (m.eval ? evalText(m.eval) : '–') : null,
      games: games(m).toLocaleString('en-US'),
      score: pct(m.score.value),
      interval: `${pct(m.score.low)}–${pct(m.score.high)}`,
      few: m.score.fewGames,
      perf: m.performance === null ? '–' : String(m.performance),
      opp: m.averageOpponentRating === null ? '–' : String(m.averageOpponentRating),
      last: m.lastPlayed ?? '–',
      time: m.time ? duration(m.time.averageSeconds) : '–',
    })),
  );
  const heading = await page.textContent('h2.opening-name');
  if (want.opening) assert.equal(heading, `${want.opening.eco} ${want.opening.name}`);
  const bar = await page.$$eval('.evalbar .evaltext', spans => spans.map(s => s.textContent));
  assert.deepEqual(bar, want.eval ? [evalText(want.eval)] : [], 'the evaluation bar shows the position\'s evaluation');
  return want;
}

const checks = [];
const check = (name, f) => checks.push({ name, f });

check('a linked position shows the API\'s table, arrows and breadcrumbs', async () => {
  await page.goto(`${base}/?user=${encodeURIComponent(user)}&moves=e2e4,c7c5`);
  const want = await tableMatchesApi({ user, moves: 'e2e4,c7c5' });
  assert.ok(want.moves.length > 0, 'the player has games after 1.e4 c5');
  const arrows = await page.$$eval('svg.cg-shapes g[cgHash]', gs => gs.map(g => g.getAttribute('cgHash')));
  assert.equal(arrows.length, Math.min(8, want.moves.length), 'one arrow per move (at most 8)');
  // A move under a tenth of the games gets a pale arrow, the main moves a full one.
  const total = want.moves.reduce((n, m) => n + m.white + m.draws + m.black, 0);
  const pale = want.moves.slice(0, 8).filter(m => (m.white + m.draws + m.black) / total < 0.1);
  assert.ok(pale.length > 0 && pale.length < Math.min(8, want.moves.length), 'both kinds here');
  for (const m of want.moves.slice(0, 8)) {
    // chessground's hash: the board's size, then orig, dest and the brush.
    const [orig, dest] = [m.uci.slice(0, 2), m.uci.slice(2, 4)];
    const parts = arrows.map(h => h.split(',')).find(p => p.some((x, i) => x === orig && p[i + 1] === dest));
    assert.ok(parts, `an arrow for ${m.uci}: ${arrows}`);
    const brush = parts[parts.indexOf(orig) + 2];
    assert.equal(brush.startsWith('pale'), pale.includes(m), `${m.uci}: ${parts}`);
  }
  // Recent games open on their site.
  const links = await page.$$eval('section.recent a.game', as => as.map(a => [a.href, a.target]));
  const urls = want.recentGames.filter(g => g.url).map(g => [g.url, '_blank']);
  assert.ok(urls.length > 0, 'Chess.com games have their address');
  assert.deepEqual(links, urls);
  assert.equal(await page.textContent('nav.crumbs'), 'start 1.e4 c5');
  assert.equal(await page.inputValue('#player'), user);
  await shot('explore-desktop');
});

check('clicking a move goes deeper; back and forward walk the history', async () => {
  const first = await page.getAttribute('table.moves tbody tr:first-child', 'data-uci');
  await page.click('table.moves tbody tr:first-child');
  await page.waitForFunction(n => new URL(location.href).searchParams.get('moves')?.split(',').length === n, 3);
  assert.deepEqual(movesInUrl(), ['e2e4', 'c7c5', first]);
  await tableMatchesApi({ user, moves: `e2e4,c7c5,${first}` });
  await page.goBack();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('moves') === 'e2e4,c7c5');
  await tableMatchesApi({ user, moves: 'e2e4,c7c5' });
  await page.goForward();
  await page.waitForFunction(n => new URL(location.href).searchParams.get('moves')?.split(',').length === n, 3);
  await tableMatchesApi({ user, moves: `e2e4,c7c5,${first}` });
  // The arrow keys: left steps back, right forward along the line walked.
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('moves') === 'e2e4,c7c5');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('moves') === 'e2e4');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('moves') === 'e2e4,c7c5');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(m => new URL(location.href).searchParams.get('moves') === m, `e2e4,c7c5,${first}`);
  await tableMatchesApi({ user, moves: `e2e4,c7c5,${first}` });
  await page.click('nav.crumbs a[data-ply="1"]');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('moves') === 'e2e4');
  await tableMatchesApi({ user, moves: 'e2e4' });
});

check('a move played on the board goes there', async () => {
  await page.goto(`${base}/?user=${encodeURIComponent(user)}&moves=e2e4`);
  await tableMatchesApi({ user, moves: 'e2e4' });
  // Orientation: the walk is in the player's White games (no colour chosen), so the board
  // stays White's way up although Black is to move; the opponent's reply is played on it.
  assert.ok(await page.$('.cg-wrap.orientation-white'), 'the board keeps its side');
  const box = await page.locator('cg-board').boundingBox();
  const square = sq => {
    const file = sq.charCodeAt(0) - 97;
    const rank = Number(sq[1]) - 1;
    const s = box.width / 8;
    return { x: box.x + (file + 0.5) * s, y: box.y + (7 - rank + 0.5) * s };
  };
  for (const sq of ['e7', 'e5']) {
    const p = square(sq);
    await page.mouse.click(p.x, p.y);
  }
  await page.waitForFunction(() => new URL(location.href).searchParams.get('moves') === 'e2e4,e7e5');
  await tableMatchesApi({ user, moves: 'e2e4,e7e5' });
});

check('one colour per walk: the colour chosen holds across clicks, the board keeps its side', async () => {
  for (const color of ['black', 'white']) {
    const first = color === 'black' ? `&color=black` : '';
    await page.goto(`${base}/?user=${encodeURIComponent(user)}${first}`);
    const walked = [];
    // Three clicks: the opponent's move, the player's, the opponent's again (as Black), or
    // the player's, the opponent's, the player's (as White).
    for (let click = 0; click < 3; click++) {
      const want = await tableMatchesApi({ user, moves: walked.join(','), color });
      assert.ok(want.moves.length > 0, `${color}: games after ${walked}`);
      assert.equal(await page.inputValue('select[name=color]'), color);
      assert.ok(await page.$(`.cg-wrap.orientation-${color}`), `${color}: the board's side after ${walked}`);
      const uci = await page.getAttribute('table.moves tbody tr:first-child', 'data-uci');
      await page.click('table.moves tbody tr:first-child');
      walked.push(uci);
      await page.waitForFunction(m => new URL(location.href).searchParams.get('moves') === m, walked.join(','));
    }
    const want = await tableMatchesApi({ user, moves: walked.join(','), color });
    assert.ok(await page.$(`.cg-wrap.orientation-${color}`), `${color}: the board's side after ${walked}`);
    // The counts are the player's games with that colour alone: the API's for the colour.
    const total = want.white + want.draws + want.black;
    const other = await api('/api/v1/explore', { user, moves: walked.join(','), color: color === 'white' ? 'black' : 'white' });
    assert.notDeepEqual(other.moves, want.moves, 'the other colour is another tree');
    assert.ok(total > 0);
  }
});

check('a recent game replays on the board, move by move, and leads back to the explorer', async () => {
  await page.goto(`${base}/?user=${encodeURIComponent(user)}&moves=e2e4&color=black`);
  const want = await tableMatchesApi({ user, moves: 'e2e4', color: 'black' });
  const first = want.recentGames[0];
  assert.ok(first, 'a recent game after 1.e4');
  await page.click('section.recent li:first-child a.replay');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('view') === 'game');
  const q = new URL(page.url()).searchParams;
  assert.equal(q.get('game'), first.id);
  assert.equal(q.get('ply'), '1');
  const game = await api('/api/v1/game', { user, id: first.id });
  await page.waitForSelector('ol.score-sheet a.move');
  const sheet = await page.$$eval('ol.score-sheet a.move', as => as.map(a => a.textContent));
  assert.deepEqual(sheet, game.moves.map(m => m.san), 'the score sheet is the game');
  assert.equal(game.moves[1].uci, first.uci, 'the game plays the move the explorer listed');
  // Shown at the explored position: after 1.e4, the board Black's way up (his colour).
  assert.equal(await page.textContent('ol.score-sheet a.move.current'), 'e4');
  assert.ok(await page.$('.cg-wrap.orientation-black'));
  const pieceCount = () => page.evaluate(() => document.querySelector('cg-board')?.querySelectorAll('piece').length);
  const pieces = await pieceCount();
  // Forward with the key, then a click on a later move, then back to the start.
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('ply') === '2');
  assert.equal(await page.textContent('ol.score-sheet a.move.current'), game.moves[1].san);
  const later = Math.min(game.moves.length, 12);
  await page.click(`ol.score-sheet a.move[data-ply="${later}"]`);
  await page.waitForFunction(n => new URL(location.href).searchParams.get('ply') === String(n), later);
  assert.equal(await page.textContent('ol.score-sheet a.move.current'), game.moves[later - 1].san);
  assert.ok((await pieceCount()) <= pieces, 'captures leave fewer pieces, never more');
  if (shots) await page.waitForTimeout(400); // the board's animation ends
  await shot('game-replay');
  await page.keyboard.press('End');
  await page.waitForFunction(n => new URL(location.href).searchParams.get('ply') === String(n), game.moves.length);
  assert.ok(await page.$('p.game-end'), 'the end of the game is said');
  await page.keyboard.press('Home');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('ply') === '0');
  // Back to the explorer at a position of the game, in his colour.
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('ply') === '2');
  await page.click('a.explore-here');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('view') === null);
  assert.deepEqual(movesInUrl(), game.moves.slice(0, 2).map(m => m.uci));
  await tableMatchesApi({ user, moves: game.moves.slice(0, 2).map(m => m.uci).join(','), color: game.color });
  // An id that is not one of his games says so (the browser logs the 404 it was
  // answered: that one line is expected, any other error still fails the check).
  const before = errors.length;
  await page.goto(`${base}/?view=game&user=${encodeURIComponent(user)}&game=nope&ply=0`);
  await page.waitForSelector('p.error');
  assert.match(await page.textContent('.side'), /no game "nope"/);
  const logged = errors.splice(before);
  errors.push(...logged.filter(e => !/status of 404/.test(e)));
});

check("the repertoire saves as a PGN whose main line is the explorer's most played moves", async () => {
  await page.goto(`${base}/?user=${encodeURIComponent(user)}&color=black&speeds=blitz`);
  await page.waitForSelector('table.moves');
  const href = await page.getAttribute('#repertoire-pgn', 'href');
  const q = new URL(href, base).searchParams;
  assert.deepEqual([q.get('user'), q.get('color'), q.get('speeds')], [user, 'black', 'blitz']);
  const r = await fetch(new URL(href, base));
  assert.equal(r.headers.get('content-type'), 'application/x-chess-pgn');
  const parsed = parsePgn(await r.text());
  assert.equal(parsed.length, 1);
  // The first moves of the main line are the most played in the explorer, ply by ply.
  const main = [];
  for (let node = parsed[0].moves; node.children.length && main.length < 4; node = node.children[0]) main.push(node.children[0].data.san);
  const walked = [];
  for (const san of main) {
    const here = await api('/api/v1/explore', { user, moves: walked.join(','), color: 'black', speeds: 'blitz', recentGames: 0 });
    // The most played (another of as many games would do: the order of a tie is the file's).
    const played = here.moves.find(m => m.san === san);
    assert.ok(played, `${san} after ${walked.join(' ')}`);
    assert.equal(games(played), games(here.moves[0]), `${san} after ${walked.join(' ')}`);
    walked.push(played.uci);
  }
  assert.ok(main.length >= 2, `a main line: ${main}`);
});

check('filters: speed, colour, opponent rating and dates are in the URL and the table', async () => {
  await page.goto(`${base}/?user=${encodeURIComponent(user)}&moves=e2e4`);
  await tableMatchesApi({ user, moves: 'e2e4' });
  await page.check('input[name=speeds][value=blitz]');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('speeds') === 'blitz');
  await tableMatchesApi({ user, moves: 'e2e4', speeds: 'blitz' });
  await page.selectOption('select[name=rated]', 'true');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('rated') === 'true');
  await tableMatchesApi({ user, moves: 'e2e4', speeds: 'blitz', rated: 'true' });
  await page.fill('input[name=ratingMin]', '1200');
  await page.fill('input[name=ratingMax]', '1700');
  await page.press('input[name=ratingMax]', 'Tab');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('opponentRating') === '1200-1700');
  await tableMatchesApi({ user, moves: 'e2e4', speeds: 'blitz', rated: 'true', opponentRating: '1200-1700' });
  // A filtered view is a link too.
  const link = page.url();
  await page.goto(`${base}/`);
  await page.goto(link);
  await tableMatchesApi({ user, moves: 'e2e4', speeds: 'blitz', rated: 'true', opponentRating: '1200-1700' });
  assert.equal(await page.isChecked('input[name=speeds][value=blitz]'), true);
  await page.goto(`${base}/?user=${encodeURIComponent(user)}&color=white&since=2020-01&until=2022-12`);
  await tableMatchesApi({ user, color: 'white', since: '2020-01', until: '2022-12' });
  assert.equal(await page.inputValue('input[name=since]'), '2020-01');
});

check('play: every reply is legal and labelled; keyboard, click, undo, flip, PGN', async () => {
  await page.goto(`${base}/?view=play&user=${encodeURIComponent(user)}&side=white`);
  const wanted = ['e4', 'Nf3', 'd4', 'Bc4', 'O-O', 'Nc3', 'h3', 'a3'];
  for (let turn = 0; turn < 6; turn++) {
    await page.waitForFunction(() => document.querySelector('.status')?.textContent === 'Your move.');
    const before = movesInUrl();
    const { pos } = replay(before);
    const san = wanted.find(s => parseSan(pos, s)) ?? makeSan(pos, [...pos.allDests()].flatMap(([from, tos]) => [...tos].map(to => ({ from, to }))).find(m => pos.isLegal(m)));
    // One move as UCI, the others as SAN.
    const text = turn === 1 ? (() => { const m = parseSan(pos, san); return `${'abcdefgh'[m.from % 8]}${Math.floor(m.from / 8) + 1}${'abcdefgh'[m.to % 8]}${Math.floor(m.to / 8) + 1}`; })() : san;
    await page.fill('input[name=move]', text);
    const [response] = await Promise.all([
      page.waitForResponse(r => r.url().includes('/api/v1/move'), { timeout: 15_000 }),
      page.press('input[name=move]', 'Enter'),
    ]);
    const answer = await response.json();
    await page.waitForFunction(n => (new URL(location.href).searchParams.get('moves') ?? '').split(',').length >= n, before.length + 2, { timeout: 15_000 });
    const after = movesInUrl();
    const { sans } = replay(after);
    assert.equal(sans[before.length], san, 'the typed move was played');
    assert.equal(answer.uci, after[before.length + 1], 'the board shows the API\'s reply');
    assert.ok(['book', 'fallback', 'endgame'].includes(answer.source.kind), JSON.stringify(answer.source));
    // The reply in words, and the engine's account one click away.
    const reply = `.ply.mirror[data-ply="${before.length + 1}"]`;
    assert.equal(await page.textContent(`${reply} .source summary`), answer.words);
    assert.equal(await page.isVisible(`${reply} .source .detail`), false, 'the account is folded');
    await page.click(`${reply} .source summary`);
    const label = await page.textContent(`${reply} .source .detail`);
    if (answer.source.kind === 'book') assert.match(label, new RegExp(`^book · ${answer.source.policy.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    else assert.ok(label.startsWith(`${answer.source.policy} · `), label);
  }
  const played = movesInUrl();
  // The moves in pairs, numbered as people write them (1. e4 e5), and the opening named
  // as the explorer names it.
  const sans = replay(played).sans;
  const rows = await page.$$eval('ol.game li', lis => lis.map(li => [li.querySelector('.no').textContent, ...[...li.querySelectorAll('.ply b')].map(b => b.textContent)]));
  assert.deepEqual(rows, sans.reduce((out, san, i) => (i % 2 ? out[out.length - 1].push(san) : out.push([`${i / 2 + 1}.`, san]), out), []));
  const named = await (await fetch(`${base}/api/v1/explore?${new URLSearchParams({ user, moves: played.join(','), color: 'black' })}`)).json();
  await page.waitForFunction(want => document.querySelector('.opening-name')?.textContent === want, named.opening ? `${named.opening.eco} ${named.opening.name}` : '');
  await shot('play-desktop');
  // Undo takes back the person's move and the mirror's answer.
  await page.click('button[name=undo]');
  await page.waitForFunction(n => (new URL(location.href).searchParams.get('moves') ?? '').split(',').length === n, played.length - 2);
  await page.click('button[name=flip]');
  assert.ok(await page.$('.cg-wrap.orientation-black'), 'flipped');
  await page.click('button[name=flip]');
  // A move by clicking two squares (white's view).
  await page.waitForFunction(() => document.querySelector('.status')?.textContent === 'Your move.');
  const now = movesInUrl();
  const { pos } = replay(now);
  const legal = [...pos.allDests()].flatMap(([from, tos]) => [...tos].map(to => ({ from, to }))).find(m => pos.board.get(m.from)?.role !== 'king' && pos.isLegal(m) && !(pos.board.get(m.from)?.role === 'pawn' && Math.floor(m.to / 8) === 7));
  const box = await page.locator('cg-board').boundingBox();
  const at = sq => ({ x: box.x + ((sq % 8) + 0.5) * (box.width / 8), y: box.y + (7 - Math.floor(sq / 8) + 0.5) * (box.width / 8) });
  await page.mouse.click(at(legal.from).x, at(legal.from).y);
  await page.mouse.click(at(legal.to).x, at(legal.to).y);
  await page.waitForFunction(n => (new URL(location.href).searchParams.get('moves') ?? '').split(',').length >= n, now.length + 2, { timeout: 15_000 });
  // The game as PGN.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('button[name=pgn]')]);
  const text = fs.readFileSync(await download.path(), 'utf8');
  const [game] = parsePgn(text);
  const final = movesInUrl();
  assert.deepEqual([...game.moves.mainline()].map(n => n.san), replay(final).sans);
  assert.equal(game.headers.get('White'), 'You');
  assert.equal(game.headers.get('Black'), `mirror of ${user}`);
  await page.setViewportSize({ width: 390, height: 844 });
  await shot('play-phone');
  await page.setViewportSize({ width: 1280, height: 900 });
});

check("play: a clock, and the mirror at the player's pace", async () => {
  await page.goto(`${base}/?view=play&user=${encodeURIComponent(user)}&side=white`);
  await page.selectOption('select[name=clock]', '60+0');
  await page.check('input[name=pace]');
  await page.waitForSelector('.clock.you.running');
  assert.equal(await page.textContent('.clock.mirror'), 'mirror 1:00.0');
  await page.fill('input[name=move]', 'e4');
  const [paced] = await Promise.all([
    page.waitForResponse(r => r.url().includes('/api/v1/pace'), { timeout: 15_000 }),
    page.press('input[name=move]', 'Enter'),
  ]);
  const pace = await paced.json();
  assert.ok(['book', 'model', 'clock'].includes(pace.source), JSON.stringify(pace));
  const asked = new URL(paced.url()).searchParams;
  assert.equal(asked.get('clock'), '60+0');
  assert.ok(Number(asked.get('left')) > 59_000 && Number(asked.get('left')) <= 60_000, asked.toString());
  await page.waitForFunction(() => (new URL(location.href).searchParams.get('moves') ?? '').split(',').length >= 2, null, { timeout: 20_000 });
  // The mirror's clock lost about its wait; now the person's runs.
  const text = (await page.textContent('.clock.mirror')).replace('mirror ', '');
  const [min, sec] = text.split(':');
  const spent = 60 - (Number(min) * 60 + Number(sec));
  assert.ok(Math.abs(spent - pace.seconds) < 0.8, `mirror ${text} after a wait of ${pace.seconds} s`);
  const label = await page.textContent('.ply.mirror[data-ply="1"] .source .detail');
  assert.ok(label.includes(pace.detail), label);
  assert.ok(await page.$('.clock.you.running'), 'your clock runs');
  await shot('play-clock');
});

check('play: the flag falls when the clock runs out', async () => {
  // The page's own clock, faked: a minute passes in a moment.
  const fresh = await page.context().newPage();
  await fresh.clock.install();
  await fresh.goto(`${base}/?view=play&user=${encodeURIComponent(user)}&side=white`);
  await fresh.selectOption('select[name=clock]', '60+0');
  await fresh.waitForSelector('.clock.you.running');
  await fresh.clock.fastForward(61_000);
  await fresh.waitForFunction(() => document.querySelector('.status')?.textContent === 'Game over: white ran out of time (0-1).');
  assert.equal(await fresh.textContent('.clock.you'), 'you 0:00.0');
  assert.equal(await fresh.isDisabled('input[name=move]'), true);
  await fresh.close();
});

check('play: the end of a game is recognised', async () => {
  const ends = [
    ['f2f3,e7e5,g2g4,d8h4', 'checkmate, black wins (0-1)'],
    ['e2e3,a7a5,d1h5,a8a6,h5a5,h7h5,h2h4,a6h6,a5c7,f7f6,c7d7,e8f7,d7b7,d8d3,b7b8,d3h7,b8c8,f7g6,c8e6', 'stalemate (1/2-1/2)'],
    ['g1f3,g8f6,f3g1,f6g8,g1f3,g8f6,f3g1,f6g8', 'threefold repetition (1/2-1/2)'],
  ];
  ends.push([fiftyMoves().join(','), 'fifty moves without a capture or pawn move (1/2-1/2)']);
  for (const [moves, why] of ends) {
    await page.goto(`${base}/?view=play&user=${encodeURIComponent(user)}&side=white&moves=${moves}`);
    await page.waitForSelector('.status');
    assert.equal(await page.textContent('.status'), `Game over: ${why}.`);
    assert.equal(await page.isDisabled('input[name=move]'), true);
  }
});

check('prepare: the API\'s lines, a line on the board with its numbers, practise from it', async () => {
  const want = await api('/api/v1/prep', { user, opponent: user, color: 'white' });
  assert.ok(want.lines.length >= 2, 'two lines at least');
  await page.goto(`${base}/?view=prep&user=${encodeURIComponent(user)}&opponent=${encodeURIComponent(user)}&color=white`);
  await page.waitForSelector('ol.prep-lines');
  const listed = await page.$$eval('ol.prep-lines > li.line', lis =>
    lis.map(li => ({ uci: li.dataset.uci, p: li.querySelector('.probability').textContent })),
  );
  assert.deepEqual(listed, want.lines.map(l => ({ uci: l.uci.join(','), p: pct(l.probability) })));
  const line = want.lines[1];
  await page.click('ol.prep-lines > li.line:nth-child(2) a.show');
  await page.waitForSelector('ol.prep-lines li.chosen table.steps');
  assert.deepEqual(movesInUrl(), line.uci);
  const rows = await page.$$eval('li.chosen table.steps tbody tr', trs =>
    trs.map(tr => ['san', 'of', 'games', 'share'].map(c => tr.querySelector(`.${c}`).textContent).concat(tr.querySelector('.score').firstChild.textContent)),
  );
  const { sans } = replay(line.uci);
  assert.deepEqual(
    rows,
    line.steps.map((s, i) => [
      `${Math.floor(i / 2) + 1}${i % 2 ? '...' : '.'}${sans[i]}`,
      s.positionGames.toLocaleString('en-US'),
      s.games.toLocaleString('en-US'),
      pct(s.share),
      pct(s.score),
    ]),
  );
  await shot('prep-desktop');
  // Practise: the opponent's mirror from the line, the person with the prepared colour.
  await page.click('li.chosen a.practise');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('view') === 'play');
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('user'), user);
  assert.equal(url.searchParams.get('side'), 'white');
  await page.waitForFunction(() => document.querySelector('.status')?.textContent === 'Your move.', null, { timeout: 15_000 });
  const moves = movesInUrl();
  assert.deepEqual(moves.slice(0, line.uci.length), line.uci);
  assert.equal(moves.length % 2, 0, 'white to move');
  // As Black: the page asks again and lists the other colour's lines.
  const black = await api('/api/v1/prep', { user, opponent: user, color: 'black' });
  await page.goto(`${base}/?view=prep&user=${encodeURIComponent(user)}&opponent=${encodeURIComponent(user)}`);
  await page.waitForSelector('ol.prep-lines');
  await page.selectOption('select[name=color]', 'black');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('color') === 'black');
  await page.waitForFunction(
    first => document.querySelector('ol.prep-lines > li.line')?.getAttribute('data-uci') === first,
    black.lines[0].uci.join(','),
  );
  assert.equal(await page.$$eval('ol.prep-lines > li.line', lis => lis.length), black.lines.length);
});

check('where to study: items link to their positions', async () => {
  const want = await api('/api/v1/report', { user });
  await page.goto(`${base}/?view=report&user=${encodeURIComponent(user)}`);
  await page.waitForSelector('.report-part');
  const parts = await page.$$eval('.report-part', ps => ps.map(p => p.querySelectorAll(':scope > ol > li').length));
  assert.deepEqual(parts, [
    want.engine.length,
    want.unpunished.length,
    want.book.length,
    want.costly.length,
    want.deviations.length,
    want.surprises.length,
    want.drift.length,
    want.clock.slow.length,
    0,
    0,
  ]);
  // Where the player burns their clock: the time-trouble table shows the API's games.
  assert.ok(want.clock.overall.trouble.games + want.clock.overall.calm.games > 0, 'the games have clocks');
  const trouble = await page.$$eval('table.trouble tbody tr', trs => trs.map(tr => tr.textContent));
  assert.equal(trouble.length, 1 + want.clock.openings.length);
  assert.ok(trouble[0].startsWith('all timed games') && trouble[0].includes(`${want.clock.overall.trouble.games.toLocaleString('en-US')} game`), trouble[0]);
  // How much of the clock a move takes: the API's twelve cells, stage by stage.
  const pace = await page.$$eval('table.pace tbody td', tds => tds.map(td => [td.textContent, td.title]));
  assert.deepEqual(
    pace,
    want.clock.pace.map(c => [c.share === null ? '–' : `${(c.share * 100).toFixed(1)}%`, `${c.moves} timed moves`]),
  );
  await shot('report-desktop');
  // Where the player loses by the engine (the server's store is analysed): each move with
  // its mark and the engine's better move.
  assert.ok(want.analysed.evaluated > 0 && want.engine.length > 0, 'the analysed report has engine items');
  const losses = await page.$$eval('li.engine-loss', lis =>
    lis.map(li => [li.querySelector('p b').textContent, li.querySelector('.judgement').textContent]),
  );
  const marks = { inaccuracy: '?!', mistake: '?', blunder: '??' };
  assert.deepEqual(losses, want.engine.map(e => [e.played.san, marks[e.judgement]]));
  // The opponents' mistakes (their move and its mark, the player's reply) and the book's
  // exits per opening, as the API gives them.
  const unpunished = await page.$$eval('li.unpunished', lis =>
    lis.map(li => [...li.querySelectorAll('p b')].slice(0, 2).map(b => b.textContent).concat(li.querySelector('.judgement').textContent)),
  );
  assert.deepEqual(unpunished, want.unpunished.map(u => [u.mistake.san, u.reply.san, marks[u.judgement]]));
  assert.ok(want.book.length > 0, 'the analysed report says where the book ends');
  const exits = await page.$$eval('li.book-exit', lis => lis.map(li => li.querySelectorAll('ul.choices > li').length));
  assert.deepEqual(exits, want.book.map(b => b.worst.length));
  // The first item: the first of where the player loses by the engine (checked above).
  const item = want.engine[0];
  await page.click('.report-part li.item a.place >> nth=0');
  await page.waitForSelector('table.moves, .side p.note');
  assert.deepEqual(movesInUrl(), item.moves);
  await tableMatchesApi({ user, moves: item.moves.join(','), color: item.color });
  // The item's games, opened: the explorer's games through the position after the move
  // the item is about (the item's colour), and one replays from there.
  await page.goBack();
  await page.waitForSelector('.report-part li.item details.games');
  await page.click('.report-part li.item details.games > summary >> nth=0');
  await page.waitForSelector('.report-part li.item details.games[open] a.replay');
  const after = [...item.moves, item.played.uci];
  assert.equal(await page.textContent('.report-part li.item details.games[open] > summary'), `games with ${item.played.san}`);
  const through = await api('/api/v1/explore', { user, moves: after.join(','), color: item.color, recentGames: 8 });
  const listed = await page.$$eval('details.games[open] a.replay', as => as.map(a => new URL(a.href).searchParams.get('game')));
  assert.ok(through.recentGames.length > 0, "the item's position has games");
  assert.deepEqual(listed, through.recentGames.map(g => g.id));
  await shot('report-games');
  await page.click('details.games[open] a.replay >> nth=0');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('view') === 'game');
  const ply = Number(new URL(page.url()).searchParams.get('ply'));
  assert.equal(ply, through.recentGames[0].ply);
  await page.waitForSelector('ol.score-sheet a.move');
  // The board is after the item's move, reached by whatever order the game played.
  const game = await api('/api/v1/game', { user, id: listed[0] });
  const at = game.moves.slice(0, ply).map(m => m.uci);
  const epd = fen => fen.split(' ').slice(0, 4).join(' ');
  assert.equal(epd(makeFen(replay(at).pos.toSetup())), epd(makeFen(replay(after).pos.toSetup())));
  assert.equal(game.moves[ply].uci, through.recentGames[0].uci, 'the game plays there the move listed');
});

check("the engine's evaluations: a bar for the position, an Eval column and lichess's marks", async () => {
  // A position of the analysed tree where one of the player's moves has a mark.
  let found = null;
  const queue = [[]];
  while (queue.length && !found) {
    const moves = queue.shift();
    const want = await api('/api/v1/explore', { user, moves: moves.join(','), recentGames: 0 });
    if (want.eval && want.moves.some(m => m.judgement)) found = moves;
    else if (moves.length < 4) for (const m of want.moves.slice(0, 3)) queue.push([...moves, m.uci]);
  }
  assert.ok(found, 'the analysed tree has a move with a mark within four plies');
  await page.goto(`${base}/?user=${encodeURIComponent(user)}&moves=${found.join(',')}`);
  const want = await tableMatchesApi({ user, moves: found.join(',') });
  assert.ok(want.eval, 'the position is evaluated');
  const marks = await page.$$eval('table.moves .judgement', spans => spans.map(s => s.className));
  assert.ok(marks.length > 0, 'a mark is shown');
  const width = await page.$eval('.evalbar .fill', d => parseFloat(d.style.width));
  assert.ok(width > 0 && width < 100, `the bar is filled in part: ${width}%`);
  await shot('explore-evaluations');
  // Nothing clipped: with every column (the Eval one too) the table fits beside the board
  // on a 1366 px laptop, and on a phone; the opening shows under each move there.
  for (const [w, h] of [[1366, 768], [390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    await page.goto(`${base}/?user=${encodeURIComponent(user)}&moves=${found.join(',')}`);
    await tableMatchesApi({ user, moves: found.join(',') });
    const clipped = await page.$eval('.table-scroll', d => d.scrollWidth - d.clientWidth);
    assert.ok(clipped <= 0, `at ${w} px the table is ${clipped}px wider than its box`);
    const shown = await page.$$eval('table.moves tbody .opening-inline', s => s.filter(e => e.offsetParent !== null).length);
    const named = want.moves.filter(m => m.opening).length;
    assert.equal(shown, named, `at ${w} px every move's opening shows under it`);
    const headings = await page.$$eval('table.moves thead th', ths => ths.filter(t => t.offsetParent !== null).length);
    const cells = await page.$$eval('table.moves tbody tr:first-child td', tds => tds.filter(t => t.offsetParent !== null).length);
    assert.equal(headings, cells, `at ${w} px each shown column has its heading`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
});

check('drill: a card on the board, a right move played, the answer shown, each kept by the server', async () => {
  const before = await api('/api/v1/drill', { user });
  assert.ok(before.cards.length >= 2, 'cards to drill');
  const later = q => q.white.later + q.black.later;
  await page.goto(`${base}/?view=drill&user=${encodeURIComponent(user)}`);
  await page.waitForSelector('#drill-card');
  const first = before.cards[0];
  assert.equal(await page.getAttribute('#drill-card', 'data-key'), first.key);
  assert.equal(await page.getAttribute('#drill-card', 'data-fen'), first.fen);
  assert.ok(await page.$(`.cg-wrap.orientation-${first.color}`), "the board from the player's side");
  assert.match(await page.textContent('#drill-verdict'), /reached this position in|loses|Against/);
  // The player's move, clicked on the board (squares as the orientation draws them).
  const box = await page.locator('cg-board').boundingBox();
  const square = sq => {
    const s = box.width / 8;
    let file = sq.charCodeAt(0) - 97;
    let rank = Number(sq[1]) - 1;
    if (first.color === 'black') [file, rank] = [7 - file, 7 - rank];
    return { x: box.x + (file + 0.5) * s, y: box.y + (7 - rank + 0.5) * s };
  };
  for (const sq of [first.right[0].slice(0, 2), first.right[0].slice(2, 4)]) {
    const p = square(sq);
    await page.mouse.click(p.x, p.y);
  }
  await page.waitForSelector('#drill-verdict.right');
  assert.match(await page.textContent('#drill-verdict'), /^Right\. .* \(back in \d+ days?\)\.$/);
  const after = await api('/api/v1/drill', { user });
  assert.equal(later(after), later(before) + 1, 'the server kept the answer');
  assert.ok(!after.cards.some(c => c.key === first.key && c.color === first.color), 'not asked again today');
  await shot('drill-right');
  // The next card: the answer asked for is a wrong one, and the card comes again.
  await page.click('#drill-next');
  await page.waitForFunction(k => document.querySelector('#drill-card')?.getAttribute('data-key') !== k, first.key);
  await page.click('#drill-show');
  await page.waitForSelector('#drill-verdict.wrong');
  assert.match(await page.textContent('#drill-verdict'), /^No\. The move here: .* It comes again in this session\.$/);
  const third = await api('/api/v1/drill', { user });
  assert.equal(later(third), later(before) + 2);
  await shot('drill-wrong');
});

check('a phone-sized screen shows the board and the tables without sideways scrolling', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/?user=${encodeURIComponent(user)}&moves=e2e4,c7c5`);
  await tableMatchesApi({ user, moves: 'e2e4,c7c5' });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
  // The filters fold away (their summary says what is set), so the moves table starts on
  // the first screen; opened, they are all there.
  assert.equal(await page.$eval('details.filters-fold', d => d.open), false);
  assert.match(await page.textContent('details.filters-fold > summary'), /as white/);
  const row = await page.locator('table.moves tbody tr:first-child').boundingBox();
  assert.ok(row.y + row.height <= 844, `the first move's row ends at ${row.y + row.height}px`);
  await shot('explore-phone');
  await page.click('details.filters-fold > summary');
  assert.ok(await page.isVisible('input[name=speeds][value=blitz]'));
  await page.goto(`${base}/?view=prep&user=${encodeURIComponent(user)}&opponent=${encodeURIComponent(user)}&moves=e2e4,c7c5`);
  await page.waitForSelector('ol.prep-lines');
  const wider = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(wider <= 0, `the prepare view is ${wider}px wider than the screen`);
  await shot('prep-phone');
  await page.setViewportSize({ width: 1280, height: 900 });
});

await runChecks(checks, errors, shot, close);
