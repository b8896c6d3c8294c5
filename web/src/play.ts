// Play: a game against the player's mirror. The person's moves by drag, click or
// keyboard; the mirror's through /api/v1/move, each labelled with where it came from.

import type { Api as Board } from 'chessground/api';
import { ChildNode, type PgnNodeData, defaultGame, makePgn } from 'chessops/pgn';
import { type Explore, type MoveAnswer, type PaceAnswer, type Source, getJson } from './api';
import { type Line, boardAt, fromText, play, standardUci } from './chess';
import type { PageState } from './state';
import { el, pct } from './ui';

export interface PlayHost {
  state: PageState;
  board: Board;
  go(next: Partial<PageState>, push?: boolean): void;
}

/** Why the game is over, or undefined. */
export function result(ucis: string[]): { score: string; why: string } | undefined {
  const { line } = play(ucis);
  const pos = line.pos;
  if (pos.isCheckmate()) {
    return pos.turn === 'white' ? { score: '0-1', why: 'checkmate, black wins' } : { score: '1-0', why: 'checkmate, white wins' };
  }
  if (pos.isStalemate()) return { score: '1/2-1/2', why: 'stalemate' };
  if (pos.isInsufficientMaterial()) return { score: '1/2-1/2', why: 'insufficient material' };
  if (pos.halfmoves >= 100) return { score: '1/2-1/2', why: 'fifty moves without a capture or pawn move' };
  const seen = new Map<string, number>();
  for (const k of line.keys) seen.set(k, (seen.get(k) ?? 0) + 1);
  if ([...seen.values()].some(n => n >= 3)) return { score: '1/2-1/2', why: 'threefold repetition' };
  return undefined;
}

export function sourceLabel(s: Source): string {
  if (s.kind === 'book') {
    const score = s.games ? (s.wins + s.draws / 2) / s.games : 0;
    return `book · ${s.policy}${s.tier ? ` tier ${s.tier}` : ''} · ${s.games} games, scored ${pct(score)}`;
  }
  if (s.kind === 'endgame') {
    return `endgame table ${s.ending} · mate in ${s.mateIn} · ${s.keeping} of ${s.legal} moves keep it`;
  }
  return `${s.policy} · ${s.detail}`;
}

/** The mirror's replies, by ply, for this page's life: in words, and the engine's account. */
const labels = new Map<string, { words: string; detail: string }>();
const labelKey = (ucis: string[], i: number) => ucis.slice(0, i + 1).join(' ');

export function pgn(user: string, side: 'white' | 'black', ucis: string[]): string {
  const game = defaultGame<PgnNodeData>();
  const mirror = `mirror of ${user}`;
  game.headers.set('Event', 'Game against my mirror');
  game.headers.set('Site', location.origin);
  game.headers.set('Date', new Date().toISOString().slice(0, 10).replace(/-/g, '.'));
  game.headers.set('White', side === 'white' ? 'You' : mirror);
  game.headers.set('Black', side === 'black' ? 'You' : mirror);
  game.headers.set('Result', result(ucis)?.score ?? '*');
  const { line } = play(ucis);
  let node = game.moves;
  for (const san of line.sans) {
    const child = new ChildNode<PgnNodeData>({ san });
    node.children.push(child);
    node = child;
  }
  return makePgn(game);
}

type Side = 'white' | 'black';

/** A game's clock on this page: the control (PGN's TimeControl: seconds+increment), each
 * side's time left (ms) at the start of the running turn, when that turn began, the
 * plies it has counted, and a side whose time ran out. */
interface Clock {
  control: string;
  inc: number;
  left: Record<Side, number>;
  since: number;
  plies: number;
  flagged?: Side;
}

/** The clocks offered: none, or seconds+increment. */
export const CLOCKS = ['', '60+0', '180+2', '300+0', '600+5'];
let clock: Clock | undefined;
/** The mirror answers after the player's time there (`/api/v1/pace`). */
let atPace = false;
let ticker: number | undefined;

function newClock(control: string, plies: number): Clock | undefined {
  const [base, inc] = control.split('+').map(Number);
  if (!control || !base) return undefined;
  return { control, inc: (inc ?? 0) * 1000, left: { white: base * 1000, black: base * 1000 }, since: Date.now(), plies };
}

const turnOf = (plies: number): Side => (plies % 2 === 0 ? 'white' : 'black');

/** The clock after the game's moves: each new ply's time off its mover's clock (and the
 * increment on); an undo gives no time back; a new game starts it again. */
function account(s: PageState): void {
  if (!clock) return;
  const n = s.moves.length;
  if (n === 0 && clock.plies > 0) clock = newClock(clock.control, 0);
  if (!clock) return;
  const now = Date.now();
  if (n > clock.plies && !clock.flagged) {
    const mover = turnOf(clock.plies);
    clock.left[mover] = Math.max(0, clock.left[mover] - (now - clock.since)) + clock.inc;
    clock.plies += 1;
    clock.since = now;
    for (; clock.plies < n; clock.plies++) clock.left[turnOf(clock.plies)] += clock.inc;
  } else if (n < clock.plies) {
    clock.plies = n;
    clock.since = now;
  }
}

/** Time left of `side` now (its clock runs while it is to move). */
function leftNow(side: Side): number {
  if (!clock) return 0;
  const running = turnOf(clock.plies) === side && !clock.flagged;
  return Math.max(0, clock.left[side] - (running ? Date.now() - clock.since : 0));
}

const clockText = (ms: number): string => {
  const t = Math.floor(ms / 100);
  return `${Math.floor(t / 600)}:${String(Math.floor(t / 10) % 60).padStart(2, '0')}.${t % 10}`;
};

let asking = '';

async function reply(host: PlayHost, s: PageState, status: HTMLElement): Promise<void> {
  const key = s.moves.join(' ');
  if (asking === key) return;
  asking = key;
  status.textContent = 'The mirror is thinking…';
  try {
    const asked = Date.now();
    const params = new URLSearchParams({ user: s.user, moves: s.moves.join(',') });
    const paceParams = new URLSearchParams(params);
    if (clock) {
      paceParams.set('left', String(Math.round(leftNow(turnOf(s.moves.length)))));
      paceParams.set('clock', clock.control);
    }
    const [answer, pace] = await Promise.all([
      getJson<MoveAnswer>('/api/v1/move', params),
      atPace ? getJson<PaceAnswer>('/api/v1/pace', paceParams) : Promise.resolve(undefined),
    ]);
    if (pace) {
      status.textContent = `The mirror is thinking… (${pace.detail})`;
      await new Promise(done => setTimeout(done, Math.max(0, pace.seconds * 1000 - (Date.now() - asked))));
    }
    if (host.state !== s || clock?.flagged) return;
    const next = [...s.moves, answer.uci];
    const took = pace ? ` · ${pace.detail}` : '';
    labels.set(labelKey(next, next.length - 1), {
      words: answer.words,
      detail: sourceLabel(answer.source) + took,
    });
    host.go({ moves: next });
  } catch (e) {
    status.textContent = `The mirror could not answer: ${(e as Error).message}`;
    status.className = 'error';
  } finally {
    asking = '';
  }
}

/** The game's moves in pairs (1. e4 e6), each of the mirror's with where it came from:
 * in words, and the engine's account one click away. */
function moveList(s: PageState, line: Line): HTMLElement {
  const ol = el('ol', { class: 'game', 'aria-label': 'moves of the game' });
  const ply = (i: number) => {
    const mirrorMoved = (i % 2 === 0 ? 'white' : 'black') !== s.side;
    const label = mirrorMoved ? labels.get(labelKey(s.moves, i)) : undefined;
    const source = !mirrorMoved
      ? el('span', { class: 'source' }, 'you')
      : label
        ? el('details', { class: 'source' }, el('summary', {}, label.words), el('span', { class: 'detail' }, label.detail))
        : el('span', { class: 'source' }, 'mirror');
    return el('div', { class: mirrorMoved ? 'ply mirror' : 'ply you', 'data-ply': i }, el('b', {}, line.sans[i]), source);
  };
  for (let i = 0; i < line.sans.length; i += 2) {
    ol.append(
      el(
        'li',
        { class: 'move' },
        el('span', { class: 'no' }, `${i / 2 + 1}.`),
        ply(i),
        i + 1 < line.sans.length ? ply(i + 1) : el('div', { class: 'ply' }),
      ),
    );
  }
  return ol;
}

/** The opening of each line asked about (the explorer's answer names it), for this
 * page's life. */
const openings = new Map<string, string>();

/** The opening the game is in, as the explorer names it (the last named position on
 * the way); filled in when the answer comes. */
function openingLine(s: PageState, played: string[]): HTMLElement {
  const p = el('p', { class: 'opening-name' });
  const key = `${s.user} ${played.join(',')}`;
  const known = openings.get(key);
  if (known !== undefined || !s.user || played.length === 0) {
    p.textContent = known ?? '';
    return p;
  }
  const params = new URLSearchParams({ user: s.user, moves: played.join(','), color: s.side === 'white' ? 'black' : 'white' });
  getJson<Explore>('/api/v1/explore', params).then(
    data => {
      const name = data.opening ? `${data.opening.eco} ${data.opening.name}` : '';
      openings.set(key, name);
      p.textContent = name;
    },
    () => undefined,
  );
  return p;
}

export function render(host: PlayHost, side: HTMLElement, below: HTMLElement): void {
  const s = host.state;
  const { line, bad } = play(s.moves);
  account(s);
  const flagged = clock?.flagged;
  const over =
    result(s.moves.slice(0, line.sans.length)) ??
    (flagged ? { score: flagged === 'white' ? '0-1' : '1-0', why: `${flagged} ran out of time` } : undefined);
  const yourTurn = line.pos.turn === s.side && !over && !bad;
  const orientation = flipped ? (s.side === 'white' ? 'black' : 'white') : s.side;
  host.board.set(
    boardAt(line, orientation, yourTurn ? s.side : undefined, uci => host.go({ moves: [...s.moves, uci] })),
  );
  const status = el('p', { class: 'status', role: 'status' });
  if (bad) status.textContent = `The link's move ${bad} is not legal; the game stops before it.`;
  else if (over) status.textContent = `Game over: ${over.why} (${over.score}).`;
  else if (!s.user) status.textContent = 'Choose a player above.';
  else status.textContent = yourTurn ? 'Your move.' : 'The mirror is to move.';

  const typed = el('input', {
    type: 'text',
    name: 'move',
    placeholder: 'type a move: Nf3 or g1f3',
    autocomplete: 'off',
    'aria-label': 'your move',
    disabled: !yourTurn,
  });
  const form = el('form', { class: 'typed' }, typed, el('button', { type: 'submit', disabled: !yourTurn }, 'Play'));
  form.addEventListener('submit', e => {
    e.preventDefault();
    const move = fromText(line.pos, typed.value);
    if (!move) {
      status.textContent = `"${typed.value}" is not a legal move here.`;
      status.className = 'status error';
      return;
    }
    host.go({ moves: [...s.moves, standardUci(line.pos, move)] });
  });

  const button = (label: string, action: () => void, name: string, disabled = false) => {
    const b = el('button', { type: 'button', name, disabled }, label);
    b.addEventListener('click', action);
    return b;
  };
  const undo = () => {
    // Back to the person's last turn: their move and the mirror's answer.
    let n = s.moves.length;
    do n -= 1;
    while (n > 0 && (n % 2 === 0 ? 'white' : 'black') !== s.side);
    host.go({ moves: s.moves.slice(0, Math.max(0, n)) });
  };
  const newGame = (side: 'white' | 'black') => {
    flipped = false;
    if (clock) clock = newClock(clock.control, 0);
    host.go({ moves: [], side });
  };
  const clockChoice = el(
    'select',
    { name: 'clock', 'aria-label': 'clock' },
    ...CLOCKS.map(c => el('option', { value: c, selected: (clock?.control ?? '') === c }, c ? `clock ${c}` : 'no clock')),
  );
  clockChoice.addEventListener('change', () => {
    clock = newClock(clockChoice.value, s.moves.length);
    host.go({});
  });
  const paceBox = el('input', { type: 'checkbox', name: 'pace', checked: atPace });
  paceBox.addEventListener('change', () => {
    atPace = paceBox.checked;
  });
  const clocks = clock
    ? el(
        'div',
        { class: 'clocks' },
        ...(['you', 'mirror'] as const).map(who => {
          const color: Side = who === 'you' ? s.side : s.side === 'white' ? 'black' : 'white';
          const running = !over && turnOf(s.moves.length) === color;
          return el('span', { class: `clock ${who}${running ? ' running' : ''}`, 'data-color': color }, `${who} ${clockText(leftNow(color))}`);
        }),
      )
    : undefined;
  window.clearInterval(ticker);
  if (clocks && !over) {
    ticker = window.setInterval(() => {
      if (!clocks.isConnected) {
        window.clearInterval(ticker);
        return;
      }
      for (const span of clocks.querySelectorAll<HTMLElement>('.clock')) {
        const color = span.dataset.color as Side;
        const ms = leftNow(color);
        span.textContent = `${span.classList.contains('you') ? 'you' : 'mirror'} ${clockText(ms)}`;
        if (ms <= 0 && clock && !clock.flagged && span.classList.contains('running')) {
          clock.left[color] = 0;
          clock.flagged = color;
          host.go({});
        }
      }
    }, 100);
  }
  const download = () => {
    const text = pgn(s.user, s.side, s.moves.slice(0, line.sans.length));
    const a = el('a', {
      href: `data:application/x-chess-pgn;charset=utf-8,${encodeURIComponent(text)}`,
      download: `mirror-${s.user || 'game'}.pgn`,
    });
    document.body.append(a);
    a.click();
    a.remove();
  };
  const controls = el(
    'div',
    { class: 'controls' },
    button('New game as white', () => newGame('white'), 'white'),
    button('New game as black', () => newGame('black'), 'black'),
    button('Undo', undo, 'undo', s.moves.length === 0),
    button(
      'Flip',
      () => {
        flipped = !flipped;
        host.board.toggleOrientation();
      },
      'flip',
    ),
    button('Download PGN', download, 'pgn', s.moves.length === 0),
    clockChoice,
    el('label', {}, paceBox, " at the player's pace"),
  );
  side.replaceChildren(
    el('h2', {}, s.user ? `You (${s.side}) against the mirror of ${s.user}` : 'Play your mirror'),
    clocks ?? '',
    openingLine(s, s.moves.slice(0, line.sans.length)),
    status,
    form,
    controls,
    moveList(s, line),
  );
  below.replaceChildren();
  if (yourTurn) typed.focus({ preventScroll: true });
  if (s.user && !over && !bad && line.pos.turn !== s.side) void reply(host, s, status);
}

/** The person turned the board around. */
let flipped = false;
