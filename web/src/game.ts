// Game: one of the player's stored games replayed on the board, move by move (from the
// explorer's recent games). Its moves paired as a score sheet, each a link to its ply;
// the arrow keys, Home and End step through it (main.ts).

import type { Api as Board } from 'chessground/api';
import { type Game, getJson } from './api';
import { boardAt, moveNumber, play } from './chess';
import { type PageState, href } from './state';
import { duration, el, message } from './ui';

export interface GameHost {
  state: PageState;
  board: Board;
  go(next: Partial<PageState>, push?: boolean): void;
}

/** The game last read, kept while its plies are stepped through. */
let kept: { user: string; game: Game } | undefined;

/** The game of the page's state, read once for its steps. */
async function load(s: PageState): Promise<Game> {
  if (kept && kept.user === s.user && kept.game.id === s.game) return kept.game;
  const game = await getJson<Game>('/api/v1/game', new URLSearchParams({ user: s.user, id: s.game }));
  kept = { user: s.user, game };
  return game;
}

/** The plies of the game shown, for the keys: undefined outside the game view or before it loads. */
export function length(s: PageState): number | undefined {
  return kept && kept.user === s.user && kept.game.id === s.game ? kept.game.moves.length : undefined;
}

const who = (p: { name: string; rating: number | null }) => `${p.name}${p.rating ? ` (${p.rating})` : ''}`;

export async function render(host: GameHost, side: HTMLElement, below: HTMLElement): Promise<void> {
  const s = host.state;
  below.replaceChildren();
  if (!s.user || !s.game) {
    side.replaceChildren(message('No game chosen: open one from the explorer\'s recent games.'));
    return;
  }
  const status = message('Reading the game…');
  side.replaceChildren(status);
  let game: Game;
  try {
    game = await load(s);
  } catch (e) {
    status.replaceWith(message(String((e as Error).message), 'error'));
    return;
  }
  if (host.state !== s) return; // a newer view was asked for meanwhile
  const ucis = game.moves.map(m => m.uci);
  const ply = Math.min(s.ply, ucis.length);
  const { line } = play(ucis.slice(0, ply));
  host.board.set(boardAt(line, game.color ?? 'white', undefined));
  const to = (n: number) => href({ ...s, ply: Math.max(0, Math.min(ucis.length, n)) });
  const step = (label: string, name: string, n: number) =>
    el('a', { class: 'step', href: to(n), 'data-ply': Math.max(0, Math.min(ucis.length, n)), 'aria-label': name, title: name }, label);
  const sheet = el('ol', { class: 'score-sheet' });
  for (let i = 0; i < game.moves.length; i += 2) {
    const pair = el('li', {}, el('span', { class: 'number' }, moveNumber(i)));
    for (const j of [i, i + 1]) {
      const m = game.moves[j];
      if (!m) continue;
      const time = m.seconds !== null ? `${duration(m.seconds)} spent` : '';
      const clock = m.clock !== null ? `${duration(m.clock)} left` : '';
      pair.append(
        el(
          'a',
          {
            class: j + 1 === ply ? 'move current' : 'move',
            href: to(j + 1),
            'data-ply': j + 1,
            title: [time, clock].filter(Boolean).join(', ') || undefined,
          },
          m.san,
        ),
      );
    }
    sheet.append(pair);
  }
  const next = game.moves[ply];
  const played = ply ? game.moves[ply - 1] : undefined;
  const parts: (HTMLElement | null)[] = [
    el('h2', { class: 'game-title' }, `${who(game.white)} – ${who(game.black)}`),
    el(
      'p',
      { class: 'game-facts' },
      el('b', {}, game.result === '1/2-1/2' ? '½-½' : game.result),
      ` · ${game.speed} · ${game.mode}${game.date ? ` · ${game.date}` : ''}`,
      game.opening ? ` · ${game.opening.eco} ${game.opening.name}` : '',
      game.url ? ' · ' : '',
      game.url ? el('a', { href: game.url, target: '_blank', rel: 'noopener noreferrer', class: 'site' }, 'on its site') : '',
    ),
    el(
      'nav',
      { class: 'steps', 'aria-label': 'step through the game' },
      step('«', 'start', 0),
      step('◀', 'back', ply - 1),
      el('span', { class: 'at' }, ply ? `${moveNumber(ply - 1, true)} ${played?.san ?? ''}` : 'start'),
      step('▶', 'forward', ply + 1),
      step('»', 'end', ucis.length),
    ),
    next ? null : el('p', { class: 'game-end' }, `End of the game: ${game.result === '1/2-1/2' ? 'drawn' : `${game.winner} won`}.`),
    sheet,
    el(
      'p',
      {},
      el(
        'a',
        {
          class: 'explore-here',
          href: href({ ...s, view: 'explore', moves: ucis.slice(0, ply), filters: { ...s.filters, color: game.color ?? s.filters.color } }),
        },
        `Explore ${s.user}'s games from here`,
      ),
    ),
  ];
  side.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
  for (const a of side.querySelectorAll<HTMLAnchorElement>('a[data-ply]')) {
    a.addEventListener('click', e => {
      e.preventDefault();
      host.go({ ply: Number(a.dataset.ply) });
    });
  }
  for (const a of side.querySelectorAll<HTMLAnchorElement>('a.explore-here')) {
    a.addEventListener('click', e => {
      e.preventDefault();
      host.go({ view: 'explore', moves: ucis.slice(0, ply), filters: { ...s.filters, color: game.color ?? s.filters.color } });
    });
  }
  side.querySelector('a.move.current')?.scrollIntoView({ block: 'nearest' });
}
