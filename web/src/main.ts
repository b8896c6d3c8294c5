// mirror's page: explore a player's tree on a board, play their mirror, see where to study.
// The URL holds what is shown (see state.ts), so every view is a link and the browser's
// back and forward buttons walk through it.

import { Chessground } from 'chessground';
import * as add from './add';
import * as drillView from './drill';
import { type Player, getJson } from './api';
import * as explore from './explore';
import * as gameView from './game';
import * as playView from './play';
import * as prepView from './prep';
import * as report from './report';
import { type PageState, href, read } from './state';
import { el, message } from './ui';

const main = document.getElementById('main') as HTMLElement;
const picker = document.getElementById('player') as HTMLSelectElement;
const nav = document.getElementById('nav') as HTMLElement;
/** The players the server listed last. */
let players: Player[] = [];

const boardBox = el('div', { class: 'board-wrap' }, el('div', { class: 'cg-wrap', id: 'board' }));
const below = el('div', { class: 'below' });
const side = el('div', { class: 'side' });
const boardEl = boardBox.firstElementChild as HTMLElement;
const board = Chessground(boardEl, {
  coordinates: true,
  animation: { duration: 150 },
  drawable: { enabled: true, eraseOnClick: true },
  premovable: { enabled: false },
});

/** The longest line walked (the right arrow steps forward along it): kept while the
 * moves shown are a start of it, else the moves shown. */
let ahead: string[] = [];
function walked(moves: string[]): void {
  if (!(moves.length <= ahead.length && moves.every((m, i) => ahead[i] === m))) ahead = [...moves];
}

const host = {
  state: read(),
  board,
  go(next: Partial<PageState>, push = true) {
    const state: PageState = { ...host.state, ...next };
    const url = href(state);
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
    host.state = state;
    walked(state.moves);
    void show();
  },
  reloadPlayers: loadPlayers,
};

async function show(): Promise<void> {
  const s = host.state;
  for (const a of nav.querySelectorAll('a')) {
    const view = a.dataset.view as PageState['view'];
    a.classList.toggle('active', view === s.view);
    a.setAttribute('href', href({ ...s, view, moves: view === 'report' || view === 'add' || view === 'drill' ? [] : view === s.view ? s.moves : [] }));
  }
  picker.value = s.user;
  document.body.dataset.view = s.view;
  document.title = s.user ? `mirror · ${s.user} · ${s.view}` : 'mirror';
  drillView.refreshBadge(s.user);
  const left = el('div', { class: 'left' }, boardBox, below);
  if (s.view === 'report' || s.view === 'add') {
    // No board in these views: its arrows go before it leaves the page (a detached board
    // has no size to draw them in).
    board.setAutoShapes([]);
    board.setShapes([]);
    main.replaceChildren(side);
    side.className = 'side wide';
    if (s.view === 'add') add.render(host, side);
    else await report.render(host, side, below);
  } else {
    side.className = 'side';
    main.replaceChildren(left, side);
    if (s.view === 'play') playView.render(host, side, below);
    else if (s.view === 'prep') await prepView.render(host, side, below, players);
    else if (s.view === 'game') await gameView.render(host, side, below);
    else if (s.view === 'drill') await drillView.render(host, side, below);
    else await explore.render(host, side, below);
    board.redrawAll();
  }
}

for (const a of nav.querySelectorAll('a')) {
  a.addEventListener('click', e => {
    e.preventDefault();
    const view = a.dataset.view as PageState['view'];
    host.go({ view, moves: view === host.state.view ? host.state.moves : [] });
  });
}
picker.addEventListener('change', () =>
  host.go({ user: picker.value, moves: host.state.view === 'play' || host.state.view === 'prep' ? [] : host.state.moves }),
);
walked(host.state.moves);
window.addEventListener('popstate', () => {
  host.state = read();
  walked(host.state.moves);
  void show();
});
document.addEventListener('keydown', e => {
  const target = e.target as HTMLElement | null;
  if (target?.closest('input, select, textarea')) return;
  if (host.state.view === 'game') {
    // A replayed game: left and right step a move, Home and End go to its ends.
    const plies = gameView.length(host.state);
    if (plies === undefined) return;
    const ply = host.state.ply;
    const to = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: plies }[e.key];
    if (to !== undefined && to >= 0 && to <= plies && to !== ply) {
      e.preventDefault();
      host.go({ ply: to });
    }
    return;
  }
  if (host.state.view !== 'explore') return;
  const moves = host.state.moves;
  if (e.key === 'ArrowLeft' && moves.length) host.go({ moves: moves.slice(0, -1) });
  // Forward along the line last walked back from (as lichess's explorer does).
  if (e.key === 'ArrowRight' && ahead.length > moves.length && moves.every((m, i) => ahead[i] === m)) {
    host.go({ moves: ahead.slice(0, moves.length + 1) });
  }
});

/** Fills the player picker from the server; returns the players. */
async function loadPlayers(): Promise<Player[]> {
  players = await getJson<Player[]>('/api/v1/players');
  picker.replaceChildren(
    el('option', { value: '' }, players.length ? 'choose…' : 'no players yet'),
    ...players.map(p => el('option', { value: p.name }, `${p.name} (${p.games.toLocaleString('en-US')} games)`)),
  );
  picker.value = host.state.user;
  return players;
}

async function start(): Promise<void> {
  try {
    await loadPlayers();
  } catch (e) {
    main.replaceChildren(message(`The server did not list its players: ${(e as Error).message}`, 'error'));
    return;
  }
  if (!players.length && host.state.view !== 'add') {
    host.go({ view: 'add' }, false);
    return;
  }
  if (!host.state.user && players.length === 1) {
    host.go({ user: players[0].name }, false);
    return;
  }
  const known = players.find(p => p.name.toLowerCase() === host.state.user.toLowerCase());
  if (known && known.name !== host.state.user) {
    host.go({ user: known.name }, false);
    return;
  }
  if (host.state.user && !known) {
    picker.append(el('option', { value: host.state.user }, `${host.state.user} (not in the store)`));
  }
  await show();
}

void start();
