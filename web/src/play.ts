// Play: a game against the player's mirror. The person's moves by drag, click or
// keyboard; the mirror's through /api/v1/move, each labelled with where it came from.

import type { Api as Board } from 'chessground/api';
import { ChildNode, type PgnNodeData, defaultGame, makePgn } from 'chessops/pgn';
import { type MoveAnswer, type Source, getJson } from './api';
import { type Line, boardAt, fromText, moveNumber, play, standardUci } from './chess';
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

/** The labels of the mirror's replies, by ply, for this page's life. */
const labels = new Map<string, string>();
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

let asking = '';

async function reply(host: PlayHost, s: PageState, status: HTMLElement): Promise<void> {
  const key = s.moves.join(' ');
  if (asking === key) return;
  asking = key;
  status.textContent = 'The mirror is thinking…';
  try {
    const params = new URLSearchParams({ user: s.user, moves: s.moves.join(',') });
    const answer = await getJson<MoveAnswer>('/api/v1/move', params);
    if (host.state !== s) return;
    const next = [...s.moves, answer.uci];
    labels.set(labelKey(next, next.length - 1), sourceLabel(answer.source));
    host.go({ moves: next });
  } catch (e) {
    status.textContent = `The mirror could not answer: ${(e as Error).message}`;
    status.className = 'error';
  } finally {
    asking = '';
  }
}

function moveList(s: PageState, line: Line): HTMLElement {
  const ol = el('ol', { class: 'game', 'aria-label': 'moves of the game' });
  line.sans.forEach((san, i) => {
    const mirrorMoved = (i % 2 === 0 ? 'white' : 'black') !== s.side;
    const label = mirrorMoved ? labels.get(labelKey(s.moves, i)) : undefined;
    ol.append(
      el(
        'li',
        { class: mirrorMoved ? 'ply mirror' : 'ply you', 'data-ply': i },
        el('span', { class: 'no' }, moveNumber(i, true)),
        el('b', {}, san),
        mirrorMoved ? el('span', { class: 'source' }, label ?? 'mirror') : el('span', { class: 'source' }, 'you'),
      ),
    );
  });
  return ol;
}

export function render(host: PlayHost, side: HTMLElement, below: HTMLElement): void {
  const s = host.state;
  const { line, bad } = play(s.moves);
  const over = result(s.moves.slice(0, line.sans.length));
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
    host.go({ moves: [], side });
  };
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
  );
  side.replaceChildren(
    el('h2', {}, s.user ? `You (${s.side}) against the mirror of ${s.user}` : 'Play your mirror'),
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
