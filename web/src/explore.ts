// Explore: the player's moves from a position, on the board (arrows) and in a table.

import type { Api as Board } from 'chessground/api';
import type { DrawShape } from 'chessground/draw';
import { type Eval, type Explore, type ExploreMove, getJson } from './api';
import { type Line, boardAt, ends, moveNumber, play, sanOf } from './chess';
import { type Filters, type PageState, SOURCES, SPEEDS, filterParams, href } from './state';
import { count, duration, el, message, pct, resultBar } from './ui';

export interface ExploreHost {
  state: PageState;
  board: Board;
  go(next: Partial<PageState>, push?: boolean): void;
}

/** The player's colour for the whole walk: the one chosen, else White (as the API does
 * for a line from the start). It never follows the side to move, so the board keeps its
 * side and the opponents' replies show in the player's own games. */
const playerColour = (f: Filters): 'white' | 'black' => f.color || 'white';

function mine(m: { white: number; draws: number; black: number }, colour: 'white' | 'black') {
  return colour === 'white'
    ? { wins: m.white, draws: m.draws, losses: m.black }
    : { wins: m.black, draws: m.draws, losses: m.white };
}

const games = (m: { white: number; draws: number; black: number }) => m.white + m.draws + m.black;

/** Arrow colour by the player's score: green well, red badly, blue in between. */
function brush(score: number): string {
  if (score >= 0.55) return 'green';
  if (score <= 0.45) return 'red';
  return 'blue';
}

/** A move under this share of the position's games gets a pale arrow: a 4-game sideline
 * does not look like a main move. */
export const MINOR_SHARE = 0.1;

export function arrows(moves: ExploreMove[]): DrawShape[] {
  const most = Math.max(1, ...moves.map(games));
  const total = Math.max(1, moves.reduce((n, m) => n + games(m), 0));
  return moves.slice(0, 8).map(m => {
    const [orig, dest] = ends(m.uci);
    const main = brush(m.score.value);
    return {
      orig,
      dest,
      brush: games(m) / total < MINOR_SHARE ? `pale${main[0].toUpperCase()}${main.slice(1)}` : main,
      modifiers: { lineWidth: Math.round(3 + 12 * (games(m) / most)) },
    };
  });
}

/** The filters form shown last, kept while the filters are those it shows, so that a
 * change made in it does not rebuild it under the person's cursor. */
let shownForm: { form: HTMLFormElement; filters: string } | undefined;

function filtersForm(host: ExploreHost): HTMLElement {
  const f = host.state.filters;
  if (shownForm && shownForm.filters === JSON.stringify(f)) return shownForm.form;
  const change = (patch: Partial<Filters>) => {
    const filters = { ...host.state.filters, ...patch };
    if (shownForm) shownForm.filters = JSON.stringify(filters);
    host.go({ filters });
  };
  const select = (name: string, value: string, options: [string, string][], on: (v: string) => void) => {
    const s = el('select', { name, 'aria-label': name });
    for (const [v, label] of options) s.append(el('option', { value: v, selected: v === value }, label));
    s.addEventListener('change', () => on(s.value));
    return s;
  };
  const boxes = (name: string, all: string[], chosen: string[], label: (s: string) => string) =>
    el(
      'span',
      { class: 'boxes' },
      ...all.map(v => {
        const box = el('input', { type: 'checkbox', name, value: v, checked: chosen.includes(v) });
        box.addEventListener('change', () => {
          const now = new Set(host.state.filters[name as 'speeds' | 'sources']);
          if (box.checked) now.add(v);
          else now.delete(v);
          change({ [name]: all.filter(x => now.has(x)) } as Partial<Filters>);
        });
        return el('label', {}, box, label(v));
      }),
    );
  const month = (name: 'since' | 'until', value: string) => {
    const i = el('input', { type: 'month', name, value, 'aria-label': name });
    i.addEventListener('change', () => change({ [name]: i.value } as Partial<Filters>));
    return i;
  };
  const [low, high] = f.opponentRating.split('-');
  const rating = (which: 0 | 1, value: string | undefined) => {
    const i = el('input', {
      type: 'number',
      name: which ? 'ratingMax' : 'ratingMin',
      min: 0,
      max: 4000,
      step: 50,
      placeholder: which ? 'max' : 'min',
      value: value ?? '',
      'aria-label': which ? 'opponent rating at most' : 'opponent rating at least',
    });
    i.addEventListener('change', () => {
      const form = i.closest('form');
      const lo = (form?.querySelector('[name=ratingMin]') as HTMLInputElement | null)?.value ?? '';
      const hi = (form?.querySelector('[name=ratingMax]') as HTMLInputElement | null)?.value ?? '';
      change({ opponentRating: lo || hi ? `${lo || 0}-${hi || 4000}` : '' });
    });
    return i;
  };
  const form = el(
    'form',
    { class: 'filters', 'aria-label': 'filters' },
    el(
      'label',
      {},
      'Colour ',
      select('color', playerColour(f), [['white', 'as white'], ['black', 'as black']], v =>
        change({ color: v as Filters['color'] }),
      ),
    ),
    el('label', {}, 'Games ', select('rated', f.rated, [['', 'all'], ['true', 'rated'], ['false', 'casual']], v =>
      change({ rated: v as Filters['rated'] }),
    )),
    el('div', { class: 'row' }, 'Speed ', boxes('speeds', SPEEDS, f.speeds, s => s)),
    el('div', { class: 'row' }, 'Site ', boxes('sources', SOURCES, f.sources, s => ({ chesscom: 'Chess.com', lichess: 'lichess', otb: 'over the board' })[s] ?? s)),
    el('label', {}, 'From ', month('since', f.since)),
    el('label', {}, 'to ', month('until', f.until)),
    el('label', {}, 'Opponent rating ', rating(0, low), '–', rating(1, high)),
  );
  form.addEventListener('submit', e => e.preventDefault());
  shownForm = { form, filters: JSON.stringify(f) };
  return form;
}

/** Whether the person opened or closed the filters (else: open beside the board, folded
 * on a phone so that the moves table is on the first screen). */
let filtersOpen: boolean | undefined;

/** The filters form in a fold whose summary says which filters are set. */
function folded(f: Filters, form: HTMLElement): HTMLElement {
  const set = [
    `as ${playerColour(f)}`,
    f.speeds.length ? f.speeds.join(', ') : '',
    f.rated === 'true' ? 'rated' : f.rated === 'false' ? 'casual' : '',
    f.sources.length ? f.sources.join(', ') : '',
    f.since || f.until ? `${f.since || '…'} to ${f.until || '…'}` : '',
    f.opponentRating ? `opponents ${f.opponentRating}` : '',
  ].filter(Boolean);
  const open = filtersOpen ?? !window.matchMedia('(max-width: 700px)').matches;
  const fold = el('details', { class: 'filters-fold', open }, el('summary', {}, `Filters: ${set.join(' · ')}`), form);
  fold.addEventListener('toggle', () => {
    filtersOpen = fold.open;
  });
  return fold;
}

function crumbs(host: ExploreHost, line: Line): HTMLElement {
  const nav = el('nav', { class: 'crumbs', 'aria-label': 'moves' });
  const link = (label: string, upto: number) => {
    const a = el('a', { href: '#', 'data-ply': upto }, label);
    a.addEventListener('click', e => {
      e.preventDefault();
      host.go({ moves: host.state.moves.slice(0, upto) });
    });
    return a;
  };
  nav.append(link('start', 0));
  line.sans.forEach((san, i) => nav.append(' ', link(`${moveNumber(i, i === 0)}${san}`, i + 1)));
  return nav;
}

/** An evaluation as a player reads it: +0.31, -1.20, #3, #-2. */
export function evalText(e: Eval): string {
  if (e.mate !== undefined) return `#${e.mate}`;
  const cp = e.cp ?? 0;
  return `${cp >= 0 ? '+' : '-'}${(Math.abs(cp) / 100).toFixed(2)}`;
}

/** White's win% of an evaluation (lichess's formula, mates as ±1000 cp). */
function whiteWinPercent(e: Eval): number {
  const cp = e.mate !== undefined ? (e.mate > 0 ? 1000 : -1000) : Math.max(-1000, Math.min(1000, e.cp ?? 0));
  return 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * cp)) - 1);
}

const MARKS = { inaccuracy: '?!', mistake: '?', blunder: '??' } as const;

/** The evaluation bar: the win% of the board's side (the player's colour), filled from the left. */
function evalBar(e: Eval, orientation: 'white' | 'black'): HTMLElement {
  const white = whiteWinPercent(e);
  const fill = el('div', { class: 'fill' });
  fill.style.width = `${orientation === 'white' ? white : 100 - white}%`;
  return el(
    'div',
    {
      class: `evalbar ${orientation === 'white' ? 'from-white' : 'from-black'}`,
      title: `${evalText(e)} at depth ${e.depth}${e.best ? `, best ${e.best}` : ''}`,
      'aria-label': `evaluation ${evalText(e)}`,
    },
    fill,
    el('span', { class: 'evaltext' }, evalText(e)),
  );
}

function table(host: ExploreHost, data: Explore, colour: 'white' | 'black'): HTMLElement {
  const body = el('tbody');
  const evaluated = data.moves.some(m => m.eval);
  for (const m of data.moves) {
    const r = mine(m, colour);
    const row = el(
      'tr',
      {
        class: m.score.fewGames ? 'move few' : 'move',
        'data-uci': m.uci,
        tabindex: 0,
        title: `play ${m.san}${m.lastPlayed ? ` · last played ${m.lastPlayed}` : ''}`,
      },
      el(
        'td',
        { class: 'san' },
        m.san,
        m.judgement ? el('span', { class: `judgement ${m.judgement}`, title: `${m.judgement}: loses ${m.winLoss} win% points` }, MARKS[m.judgement]) : null,
        // Under the move where the table is narrow (its own column then folds away).
        m.opening ? el('small', { class: 'opening-inline' }, `${m.opening.eco} ${m.opening.name}`) : null,
      ),
      el('td', { class: 'num games' }, count(games(m))),
      el('td', { class: 'wdl' }, resultBar(r.wins, r.draws, r.losses)),
      el(
        'td',
        { class: 'num score' },
        pct(m.score.value),
        el('small', {}, ` ${pct(m.score.low)}–${pct(m.score.high)}`),
        m.score.fewGames ? el('span', { class: 'badge', title: 'fewer than 10 games: the score means little' }, 'few') : null,
      ),
      el('td', { class: 'num perf' }, m.performance ?? '–'),
      el('td', { class: 'num opp' }, m.averageOpponentRating ?? '–'),
      el(
        'td',
        {
          class: 'num time',
          title: m.time ? `${m.time.timed} timed games, ${m.time.trouble} in time trouble` : 'no clock in these games',
        },
        m.time ? duration(m.time.averageSeconds) : '–',
      ),
      evaluated
        ? el(
            'td',
            { class: 'num eval', title: m.winLoss !== null ? `loses ${m.winLoss} win% points against the best move` : '' },
            m.eval ? evalText(m.eval) : '–',
          )
        : null,
      el('td', { class: 'last' }, m.lastPlayed ?? '–'),
      el('td', { class: 'opening' }, m.opening ? `${m.opening.eco} ${m.opening.name}` : ''),
    );
    const go = () => host.go({ moves: [...host.state.moves, m.uci] });
    row.addEventListener('click', go);
    row.addEventListener('keydown', e => {
      if (e.key === 'Enter') go();
    });
    body.append(row);
  }
  const total = mine(data, colour);
  const n = games(data);
  const score = n ? (total.wins + total.draws / 2) / n : 0;
  return el(
    'table',
    { class: 'moves' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        // Each heading has its column's class: narrow screens fold columns away by class.
        el('th', { class: 'san' }, 'Move'),
        el('th', { class: 'num games' }, 'Games'),
        el('th', { class: 'wdl' }, `Result (${colour})`),
        el('th', { class: 'num score', title: "the player's score and its 95% interval" }, 'Score'),
        el('th', { class: 'num perf', title: 'performance rating' }, 'Perf.'),
        el('th', { class: 'num opp', title: 'average opponent rating' }, 'Opp.'),
        el('th', { class: 'num time', title: 'mean time the move took (the average over the timed games), where the clocks say' }, 'Mean time'),
        evaluated ? el('th', { class: 'num eval', title: "the engine's evaluation after the move, from White's side" }, 'Eval') : null,
        el('th', { class: 'last' }, 'Last played'),
        el('th', { class: 'opening' }, 'Opening'),
      ),
    ),
    body,
    el(
      'tfoot',
      {},
      el(
        'tr',
        {},
        el('td', {}, 'Σ'),
        el('td', { class: 'num games' }, count(n)),
        el('td', {}, resultBar(total.wins, total.draws, total.losses)),
        el('td', { class: 'num' }, n ? pct(score) : '–'),
        el('td', { class: 'perf' }),
        el('td', { class: 'opp' }),
        el('td', { class: 'time' }),
        evaluated ? el('td', { class: 'eval' }) : null,
        el('td', { class: 'last' }),
        el('td', { class: 'opening' }),
      ),
    ),
  );
}

/** What a list of games needs of its page: where it is, and a way to go elsewhere. */
export type GamesHost = Pick<ExploreHost, 'state' | 'go'>;

/** The games of an explorer answer, each linked to its site and replayable from `line`'s position. */
export function recent(host: GamesHost, data: Explore, line: Line): HTMLElement | null {
  if (!data.recentGames.length) return null;
  const items = data.recentGames.map(g => {
    const result = g.winner === 'white' ? '1-0' : g.winner === 'black' ? '0-1' : '½-½';
    const who = (p: { name: string; rating: number | null }) => `${p.name}${p.rating ? ` (${p.rating})` : ''}`;
    const players = `${who(g.white)} – ${who(g.black)} `;
    return el(
      'li',
      {},
      g.url ? el('a', { href: g.url, target: '_blank', rel: 'noopener noreferrer', class: 'game' }, players) : players,
      el('b', {}, result),
      ` · ${g.speed} · ${g.month ?? g.year ?? ''} · `,
      el('b', {}, sanOf(line.pos, g.uci)),
      ' · ',
      replay(host, g.id, g.ply),
    );
  });
  return el('section', { class: 'recent' }, el('h3', {}, 'Recent games'), el('ul', {}, ...items));
}

/** A link replaying game `id` on the board from ply `ply` (where it reached the position explored). */
function replay(host: GamesHost, id: string, ply: number): HTMLElement {
  const a = el('a', { class: 'replay', href: href({ ...host.state, view: 'game', game: id, ply }) }, 'replay');
  a.addEventListener('click', e => {
    e.preventDefault();
    host.go({ view: 'game', game: id, ply });
  });
  return a;
}

export async function render(host: ExploreHost, side: HTMLElement, below: HTMLElement): Promise<void> {
  const s = host.state;
  const { line, bad } = play(s.moves);
  side.replaceChildren(folded(s.filters, filtersForm(host)));
  below.replaceChildren(crumbs(host, line));
  const colour = playerColour(s.filters);
  host.board.set(boardAt(line, colour, line.pos.turn, uci => host.go({ moves: [...s.moves, uci] })));
  if (bad) {
    side.append(message(`The link's move ${bad} is not legal here; the board shows the moves before it.`, 'error'));
  }
  if (!s.user) {
    side.append(message('Choose a player above.'));
    return;
  }
  const params = filterParams({ ...s.filters, color: colour }, new URLSearchParams({ user: s.user }));
  params.set('moves', s.moves.slice(0, line.sans.length).join(','));
  const status = message('Reading the games…');
  side.append(status);
  let data: Explore;
  try {
    data = await getJson<Explore>('/api/v1/explore', params);
  } catch (e) {
    status.replaceWith(message(String((e as Error).message), 'error'));
    return;
  }
  if (host.state !== s) return; // a newer view was asked for meanwhile
  host.board.setAutoShapes(arrows(data.moves));
  const heading = el(
    'h2',
    { class: 'opening-name' },
    data.opening ? `${data.opening.eco} ${data.opening.name}` : line.sans.length ? 'Unnamed position' : 'Start position',
  );
  const parts: (HTMLElement | null)[] = [heading];
  if (data.eval) parts.push(evalBar(data.eval, colour));
  if (data.moves.length) {
    parts.push(el('div', { class: 'table-scroll' }, table(host, data, colour)), recent(host, data, line));
  } else {
    parts.push(message(`${s.user} has no games from here with these filters (as ${colour}).`));
  }
  parts.push(repertoireLink(s, colour));
  status.replaceWith(...parts.filter((p): p is HTMLElement => p !== null));
}

/** A link saving the player's repertoire with `colour` (these filters) as a PGN file, for
 * lichess's study import or any PGN reader (`/api/v1/repertoire`). */
function repertoireLink(s: PageState, colour: 'white' | 'black'): HTMLElement {
  const params = filterParams({ ...s.filters, color: colour }, new URLSearchParams({ user: s.user }));
  return el(
    'p',
    { class: 'note export' },
    el('a', { href: `/api/v1/repertoire?${params}`, download: `${s.user}-${colour}.pgn`, id: 'repertoire-pgn' }, `Save ${s.user}'s repertoire as ${colour} (PGN)`),
    ' — the moves of 10 games or more, 16 plies deep, for a lichess study or any PGN reader.',
  );
}
