// Prepare: where the player's tree meets an opponent's (/api/v1/prep), likeliest line
// first; a line on the board, its numbers move by move, and a game against the opponent's
// mirror from it.

import type { Api as Board } from 'chessground/api';
import type { DrawShape } from 'chessground/draw';
import { type Player, type Prep, type PrepLine, getJson } from './api';
import { boardAt, ends, moveNumber, play } from './chess';
import { type PageState, filterParams, href } from './state';
import { count, el, message, pct } from './ui';

export interface PrepHost {
  state: PageState;
  board: Board;
  go(next: Partial<PageState>, push?: boolean): void;
}

const END: Record<PrepLine['end'], string> = {
  depth: 'the depth asked for',
  userTreeEnds: 'your games end here',
  opponentTreeEnds: 'their games end here',
  opponentTreeThins: 'out of their book',
};

/** The line's moves with their numbers; the player's in bold. */
function movesText(line: PrepLine): HTMLElement {
  const span = el('span', { class: 'line-moves' });
  line.steps.forEach((step, i) => {
    const san = `${moveNumber(i, i === 0)}${step.san}`;
    span.append(step.by === 'user' ? el('b', {}, san) : san, ' ');
  });
  return span;
}

function stepsTable(line: PrepLine, user: string, opponent: string): HTMLElement {
  return el(
    'table',
    { class: 'moves steps' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', {}, 'Move'),
        el('th', {}, 'By'),
        el('th', { class: 'num', title: "the mover's games at the position" }, 'Of'),
        el('th', { class: 'num' }, 'Games'),
        el('th', { class: 'num' }, 'Share'),
        el('th', { class: 'num', title: "the mover's score and its 95% interval" }, 'Score'),
      ),
    ),
    el(
      'tbody',
      {},
      ...line.steps.map((s, i) =>
        el(
          'tr',
          { class: `step ${s.by}`, 'data-ply': i },
          el(
            'td',
            { class: 'san', title: s.winLoss === null ? '' : `loses ${s.winLoss.toFixed(1)} win% against the engine's best` },
            `${moveNumber(i, true)}${s.san}`,
            s.judgement ? el('span', { class: `judgement ${s.judgement}` }, MARKS[s.judgement]) : null,
          ),
          el('td', {}, s.by === 'user' ? user : opponent),
          el('td', { class: 'num of' }, count(s.positionGames)),
          el('td', { class: 'num games' }, count(s.games)),
          el('td', { class: 'num share' }, pct(s.share)),
          el('td', { class: 'num score' }, pct(s.score), el('small', {}, ` ${pct(s.scoreLow)}–${pct(s.scoreHigh)}`)),
        ),
      ),
    ),
  );
}

function lineItem(host: PrepHost, answer: Prep, line: PrepLine, chosen: boolean): HTMLElement {
  const s = host.state;
  const colour = answer.color;
  const thin = line.endGames === 1 ? '1 game' : `${line.endGames} games`;
  const end = line.end === 'opponentTreeThins' ? `${END[line.end]} (${thin})` : END[line.end];
  const show = el('a', { href: href({ ...s, moves: line.uci }), class: 'show' }, movesText(line));
  show.addEventListener('click', e => {
    e.preventDefault();
    host.go({ moves: line.uci });
  });
  const links = el(
    'div',
    { class: 'links' },
    el(
      'a',
      { class: 'practise', href: href({ ...s, view: 'play', user: answer.opponent, moves: line.uci, side: colour }) },
      `Practise against ${answer.opponent}'s mirror`,
    ),
    ' · ',
    el(
      'a',
      { class: 'explore', href: href({ ...s, view: 'explore', moves: line.uci, filters: { ...s.filters, color: colour } }) },
      'Explore your games here',
    ),
  );
  return el(
    'li',
    { class: chosen ? 'line chosen' : 'line', 'data-uci': line.uci.join(',') },
    el('div', {}, el('span', { class: 'probability' }, pct(line.probability)), ' ', show),
    el(
      'small',
      { class: 'about' },
      `${line.opening ? `${line.opening.eco} ${line.opening.name} · ` : ''}ends: ${end}`,
    ),
    ...line.suggestions.map(g =>
      el(
        'p',
        { class: 'suggestion' },
        `At move ${Math.floor(g.ply / 2) + 1}: ${g.instead[0]} (then ${g.instead[1]}) scored ${pct(g.insteadScore)} in ${count(g.insteadGames)} of your games; ` +
          `${g.played[0]} (then ${g.played[1]}) ${pct(g.playedScore)} in ${count(g.playedGames)}. ` +
          (g.backing === 'engine' && g.playedLoss !== null && g.insteadLoss !== null
            ? `The engine agrees: ${g.played[0]} loses ${g.playedLoss.toFixed(1)} win%, ${g.instead[0]} ${g.insteadLoss.toFixed(1)}.`
            : 'The two 95% intervals do not overlap.'),
      ),
    ),
    links,
    chosen ? el('div', { class: 'table-scroll' }, stepsTable(line, answer.user, answer.opponent)) : null,
  );
}

function form(host: PrepHost, players: Player[]): HTMLElement {
  const s = host.state;
  const opponent = el('select', { name: 'opponent', 'aria-label': 'opponent' });
  opponent.append(el('option', { value: '' }, 'choose…'));
  for (const p of players) {
    opponent.append(el('option', { value: p.name, selected: p.name === s.opponent }, `${p.name} (${count(p.games)} games)`));
  }
  opponent.addEventListener('change', () => host.go({ opponent: opponent.value, moves: [] }));
  const colour = el('select', { name: 'color', 'aria-label': 'your colour' });
  for (const c of ['white', 'black']) colour.append(el('option', { value: c, selected: c === (s.filters.color || 'white') }, c));
  colour.addEventListener('change', () =>
    host.go({ filters: { ...s.filters, color: colour.value as 'white' | 'black' }, moves: [] }),
  );
  const f = el('form', { class: 'filters', 'aria-label': 'prepare' }, el('label', {}, 'Against ', opponent), el('label', {}, 'You play ', colour));
  f.addEventListener('submit', e => e.preventDefault());
  return f;
}

export async function render(host: PrepHost, side: HTMLElement, below: HTMLElement, players: Player[]): Promise<void> {
  const s = host.state;
  const { line } = play(s.moves);
  const colour = s.filters.color || 'white';
  host.board.set(boardAt(line, colour, undefined));
  below.replaceChildren();
  const head = [el('h2', {}, s.user ? `${s.user} prepares` : 'Prepare against an opponent'), form(host, players)];
  if (!s.user || !s.opponent) {
    side.replaceChildren(...head, message(s.user ? 'Choose an opponent.' : 'Choose a player above.'));
    return;
  }
  const params = filterParams({ ...s.filters, color: colour }, new URLSearchParams({ user: s.user, opponent: s.opponent }));
  // The lines shown stay until the answer comes (the server keeps it: choosing a line is
  // one quick request, without a flash of the empty view).
  if (!side.querySelector('ol.prep-lines')) side.replaceChildren(...head, message('Walking both trees…'));
  let answer: Prep;
  try {
    answer = await getJson<Prep>('/api/v1/prep', params);
  } catch (e) {
    if (host.state === s) side.replaceChildren(...head, message((e as Error).message, 'error'));
    return;
  }
  if (host.state !== s) return;
  const chosen = s.moves.join(',');
  const current = answer.lines.find(l => l.uci.join(',') === chosen);
  if (current) {
    const shapes: DrawShape[] = current.uci.slice(-2).map((uci, i, last) => {
      const [orig, dest] = ends(uci);
      return { orig, dest, brush: i === last.length - 1 ? 'green' : 'paleGreen' };
    });
    host.board.setAutoShapes(shapes);
  }
  side.replaceChildren(
    ...head,
    message(
      `The lines where ${answer.user} as ${answer.color} meets ${answer.opponent}, likeliest first: each player's moves as they played them; a line's chance is the product of each move's share.`,
    ),
    answer.lines.length
      ? el('ol', { class: 'prep-lines' }, ...answer.lines.map(l => lineItem(host, answer, l, l === current)))
      : message('No line is likely enough (1% or more).'),
    answer.aims.length
      ? el(
          'section',
          { class: 'aims' },
          el('h3', {}, 'Aim here'),
          message(`${answer.opponent}'s moves on these lines that the engine says lose, likeliest first.`),
          el(
            'ol',
            {},
            ...answer.aims.map(a =>
              el(
                'li',
                {},
                el('a', { href: href({ ...s, moves: [...a.uci] }) }, a.moves.length ? a.moves.join(' ') : 'start'),
                ': ',
                el('b', {}, a.san),
                el('span', { class: `judgement ${a.judgement}` }, MARKS[a.judgement]),
                ` in ${pct(a.share)} of ${count(a.games)} games, loses ${a.winLoss.toFixed(1)} win%${a.best ? ` (best ${a.best})` : ''}`,
              ),
            ),
          ),
        )
      : '',
  );
}

const MARKS = { inaccuracy: '?!', mistake: '?', blunder: '??' } as const;
