// The Drill view: the player's cards (`/api/v1/drill`) one after another on the board.
// The person plays the player's move on the board (click or drag), or asks for the
// answer; each answer goes to the server at once (with the write token, as imports do),
// which checks, stores and schedules it and draws the other side's reply; when the reply
// reaches another card of the queue, that card comes next, so a session walks lines. A
// wrong card comes again three cards later.

import type { Api } from 'chessground/api';
import { getJson, post } from './api';
import { boardAt, play, sanOf } from './chess';
import type { PageState } from './state';
import { filterParams } from './state';
import { el, games, message, pct } from './ui';

export interface DrillHost {
  state: PageState;
  board: Api;
}

type Why =
  | { kind: 'repertoire'; games: number; of: number; score: number }
  | { kind: 'loses'; played: string; games: number; winLoss: number; bestPlayed: [number, number] | null }
  | { kind: 'prep'; opponent: string; reach: number; insteadOf: string | null };

interface Card {
  key: string;
  color: 'white' | 'black';
  fen: string;
  line: string[];
  right: string[];
  why: Why;
  new?: boolean;
}

interface Counts {
  due: number;
  new: number;
  later: number;
  retired: number;
}

interface Queue {
  player: string;
  white: Counts;
  black: Counts;
  cards: Card[];
}

interface MoveResult {
  uci: string;
  san: string;
  games: number;
  score: number | null;
}

interface Answer {
  verdict: { right: boolean; grade: string; answered: MoveResult | null; rightMoves: MoveResult[]; days: number };
  reply: { played: string; reply: string; san: string; games: [number, number] } | null;
  next: Card | null;
}

const TOKEN_KEY = 'mirror-token';

/** The session in progress: its player and filters, the cards left, the tally. */
let session: { id: string; queue: Card[]; right: number; wrong: number; counts: string } | undefined;

async function token(): Promise<string | undefined> {
  const kept = sessionStorage.getItem(TOKEN_KEY);
  if (kept) return kept;
  try {
    const given = await getJson<{ token: string }>('/api/v1/session');
    sessionStorage.setItem(TOKEN_KEY, given.token);
    return given.token;
  } catch {
    return undefined;
  }
}

const scored = (r: MoveResult, player: string): string =>
  r.games > 0 && r.score !== null
    ? `${r.san}: ${player} scored ${pct(r.score)} in ${games(r.games)}`
    : `${r.san}: ${player} never played it here`;

function whyText(card: Card, player: string): string {
  const w = card.why;
  if (w.kind === 'repertoire') return `${player} reached this position in ${games(w.of)}: what is ${player}'s move here?`;
  if (w.kind === 'loses')
    return `${player}'s usual ${sanOf(play(card.line).line.pos, w.played)} here (${games(w.games)}) loses ${Math.round(w.winLoss)} win% points by the engine: find the better move.`;
  return `Against ${w.opponent}: this position comes on ${pct(w.reach)} of the lines.`;
}

function countsText(q: Queue): string {
  const side = (name: string, c: Counts) => `${name}: ${c.due} due, ${c.new} new, ${c.later} later`;
  return `${side('White', q.white)} · ${side('Black', q.black)}`;
}

/** Puts the due count in the menu's Drill link. */
function badge(q: Queue): void {
  const due = q.white.due + q.black.due;
  const b = document.getElementById('drill-due');
  if (b) b.textContent = due ? ` (${due})` : '';
}

let badged = '';
/** The menu's due count for `user`, read once per player. */
export function refreshBadge(user: string): void {
  if (!user || badged === user) return;
  badged = user;
  getJson<Queue>('/api/v1/drill', new URLSearchParams({ user, new: '0' })).then(badge, () => undefined);
}

export async function render(host: DrillHost, side: HTMLElement, below: HTMLElement): Promise<void> {
  const s = host.state;
  below.replaceChildren();
  if (!s.user) {
    host.board.set({ fen: 'start', movable: { color: undefined } });
    side.replaceChildren(message('Choose a player above.'));
    return;
  }
  const params = filterParams(s.filters, new URLSearchParams({ user: s.user }));
  const id = params.toString();
  if (session?.id !== id) {
    side.replaceChildren(message('Reading the cards…'));
    let q: Queue;
    try {
      q = await getJson<Queue>('/api/v1/drill', params);
    } catch (e) {
      side.replaceChildren(message((e as Error).message, 'error'));
      return;
    }
    badge(q);
    session = { id, queue: q.cards, right: 0, wrong: 0, counts: countsText(q) };
  }
  const current = session;
  const card = current.queue[0];
  const tally = el('p', { class: 'note', id: 'drill-counts' }, current.counts);
  if (!card) {
    host.board.set({ fen: 'start', movable: { color: undefined }, lastMove: undefined });
    side.replaceChildren(
      el('h2', {}, 'Drill'),
      tally,
      el(
        'p',
        { class: 'status', id: 'drill-done', role: 'status' },
        current.right + current.wrong
          ? `Done for now: ${current.right} right, ${current.wrong} wrong.`
          : 'Nothing due now, and no new card.',
      ),
    );
    return;
  }
  const { line } = play(card.line);
  const verdict = el('p', { class: 'status', id: 'drill-verdict', role: 'status' }, whyText(card, s.user));
  const started = performance.now();
  let answered = false;
  const answer = async (uci: string | null) => {
    if (answered) return;
    answered = true;
    host.board.set({ movable: { color: undefined } });
    const body = JSON.stringify({ key: card.key, color: card.color, uci, millis: Math.round(performance.now() - started) });
    let a: Answer;
    try {
      a = await post<Answer>(`/api/v1/drill?${params}`, body, 'application/json', await token());
    } catch (e) {
      answered = false;
      verdict.textContent = (e as Error).message;
      verdict.className = 'status error';
      return;
    }
    const v = a.verdict;
    current.queue.shift();
    if (v.right) {
      current.right += 1;
      verdict.textContent = `Right. ${v.rightMoves.map(r => scored(r, s.user)).join('; ')} (back in ${v.days === 1 ? '1 day' : `${v.days} days`}).`;
      verdict.className = 'status right';
    } else {
      current.wrong += 1;
      const mine = v.answered ? ` Yours, ${scored(v.answered, s.user)}.` : '';
      verdict.textContent = `No. The move here: ${v.rightMoves.map(r => scored(r, s.user)).join('; ')}.${mine} It comes again in this session.`;
      verdict.className = 'status wrong';
      current.queue.splice(Math.min(3, current.queue.length), 0, card);
    }
    // The right move and the reply on the board; the next card on the line comes first.
    const shown = [...card.line, card.right[0]];
    if (a.reply) {
      shown.push(a.reply.reply);
      const at = a.next ? current.queue.findIndex(c => c.key === a.next?.key && c.color === a.next?.color) : -1;
      if (at > 0) current.queue.unshift(...current.queue.splice(at, 1));
    }
    host.board.set(boardAt(play(shown).line, card.color, undefined));
    progress.textContent = progressText();
    show.hidden = true;
    next.hidden = false;
    next.focus();
  };
  host.board.set(boardAt(line, card.color, card.color, uci => void answer(uci)));
  const show = el('button', { type: 'button', id: 'drill-show' }, 'Show the answer');
  show.addEventListener('click', () => void answer(null));
  const next = el('button', { type: 'button', id: 'drill-next', hidden: true }, 'Next card');
  next.addEventListener('click', () => void render(host, side, below));
  const progressText = () =>
    `${current.queue.length} cards left in this session; ${current.right} right, ${current.wrong} wrong so far.`;
  const progress = el('p', { class: 'note', id: 'drill-progress' }, progressText());
  const moves = line.sans.map((san, i) => (i % 2 === 0 ? `${Math.floor(i / 2) + 1}. ${san}` : san)).join(' ');
  side.replaceChildren(
    el('h2', {}, 'Drill'),
    tally,
    el(
      'p',
      { class: 'drill-card', id: 'drill-card', 'data-key': card.key, 'data-fen': card.fen },
      moves || 'The start position',
      card.new ? ' (new card)' : '',
    ),
    verdict,
    el('div', { class: 'buttons' }, show, next),
    progress,
  );
}
