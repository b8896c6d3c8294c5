// Where to study: the report's items, each a link to its position in the explorer.

import { type Explore, type GamesScore, type Place, type Report, type ReportMove, type TroubleSplit, getJson } from './api';
import { play, sanOf } from './chess';
import { type GamesHost, evalText, recent } from './explore';
import { filterParams, href } from './state';
import { el, games, message, pct } from './ui';

export type ReportHost = GamesHost;

/** The player's games through an item's position, or through the position after its
 * moves `then` (the move it is about), with the report's filters and the item's colour,
 * read when opened; each replays from there. */
function gamesThrough(host: ReportHost, p: Place, then: ReportMove[]): HTMLElement {
  const label = then.length ? `games with ${then.map(m => m.san).join(' ')}` : 'games';
  const moves = [...p.moves, ...then.map(m => m.uci)];
  const box = el('details', { class: 'games' }, el('summary', {}, label));
  let asked = false;
  box.addEventListener('toggle', async () => {
    if (!box.open || asked) return;
    asked = true;
    const s = host.state;
    const params = filterParams({ ...s.filters, color: p.color }, new URLSearchParams({ user: s.user }));
    params.set('moves', moves.join(','));
    params.set('recentGames', '8');
    const status = message('Reading the games…');
    box.append(status);
    try {
      const data = await getJson<Explore>('/api/v1/explore', params);
      status.replaceWith(recent(host, data, play(moves).line) ?? message('No game with these filters.'));
    } catch (e) {
      asked = false;
      status.replaceWith(message((e as Error).message, 'error'));
    }
  });
  return box;
}

function placeLink(host: ReportHost, p: Place, then: ReportMove[] = []): HTMLElement {
  const s = host.state;
  const { line } = play(p.moves);
  const path = line.sans.map((san, i) => (i % 2 === 0 ? `${i / 2 + 1}.${san}` : san)).join(' ') || 'start';
  const link = el(
    'a',
    {
      class: 'place',
      href: href({ ...s, view: 'explore', moves: p.moves, filters: { ...s.filters, color: p.color } }),
    },
    path,
  );
  return el(
    'div',
    {},
    link,
    el(
      'small',
      {},
      ` as ${p.color}${p.opening ? ` · ${p.opening.eco} ${p.opening.name}` : ''} · ${games(p.games)}, scored ${pct(p.score)} (${pct(p.low)}–${pct(p.high)})`,
    ),
    gamesThrough(host, p, then),
  );
}

/** A score over games, with its interval. */
const gamesScore = (g: GamesScore): string =>
  g.score === null || g.low === null || g.high === null
    ? 'no games'
    : `${games(g.games)}, ${pct(g.score)} (${pct(g.low)}–${pct(g.high)})`;

/** The score with and without time trouble, by opening, as a table. */
function troubleTable(r: Report): HTMLElement {
  const row = (t: TroubleSplit) =>
    el('tr', {}, el('td', {}, t.opening ?? 'all timed games'), el('td', {}, gamesScore(t.trouble)), el('td', {}, gamesScore(t.calm)));
  return el(
    'table',
    { class: 'trouble' },
    el('thead', {}, el('tr', {}, el('th', {}, 'Opening'), el('th', {}, 'In time trouble'), el('th', {}, 'Out of it'))),
    el('tbody', {}, row(r.clock.overall), ...r.clock.openings.map(row)),
  );
}

/** The share of the clock spent on a move, by stage (rows) and clock left (columns). */
function paceTable(r: Report): HTMLElement {
  const bands = [...new Set(r.clock.pace.map(p => p.clock))];
  const stages = [...new Set(r.clock.pace.map(p => p.stage))];
  const cell = (stage: string, band: string) => {
    const p = r.clock.pace.find(x => x.stage === stage && x.clock === band);
    return el('td', { title: `${p?.moves ?? 0} timed moves` }, p?.share == null ? '–' : `${(p.share * 100).toFixed(1)}%`);
  };
  return el(
    'table',
    { class: 'pace' },
    el('thead', {}, el('tr', {}, el('th', {}, 'Stage'), ...bands.map(b => el('th', {}, b)))),
    el('tbody', {}, ...stages.map(st => el('tr', {}, el('th', {}, st), ...bands.map(b => cell(st, b))))),
  );
}

/** A move of the place in SAN. */
const sanAt = (p: Place, uci: string): string => sanOf(play(p.moves).line.pos, uci);

/** A position's moves by quarter, as a small table. */
function driftTable(d: Report['drift'][number]): HTMLElement {
  const quarters = d.quarters.slice(-8);
  const total = new Map<string, number>();
  for (const q of quarters) {
    for (const [uci, share] of q.shares) total.set(uci, (total.get(uci) ?? 0) + share * q.games);
  }
  const moves = [...total.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([uci]) => uci);
  return el(
    'table',
    { class: 'drift' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', {}, 'quarter'),
        el('th', { class: 'num' }, 'games'),
        ...moves.map(m => el('th', { class: 'num' }, sanAt(d, m))),
      ),
    ),
    el(
      'tbody',
      {},
      ...quarters.map(q =>
        el(
          'tr',
          {},
          el('td', {}, q.quarter),
          el('td', { class: 'num' }, q.games),
          ...moves.map(m => el('td', { class: 'num' }, pct(q.shares.find(([u]) => u === m)?.[1] ?? 0))),
        ),
      ),
    ),
  );
}

const choice = (m: ReportMove) =>
  el('li', {}, el('b', {}, m.san), ` ${games(m.games)} (${pct(m.share)}), scored ${pct(m.score)} (${pct(m.low)}–${pct(m.high)})`);

const choices = (ms: ReportMove[]) => el('ul', { class: 'choices' }, ...ms.slice(0, 5).map(choice));

export async function render(host: ReportHost, side: HTMLElement, below: HTMLElement): Promise<void> {
  const s = host.state;
  below.replaceChildren();
  if (!s.user) {
    side.replaceChildren(message('Choose a player above.'));
    return;
  }
  side.replaceChildren(message('Reading the games…'));
  let r: Report;
  try {
    const params = filterParams({ ...s.filters, color: '' }, new URLSearchParams({ user: s.user }));
    r = await getJson<Report>('/api/v1/report', params);
  } catch (e) {
    side.replaceChildren(message((e as Error).message, 'error'));
    return;
  }
  if (host.state !== s) return;
  const section = (title: string, explain: string, items: HTMLElement[]) =>
    el(
      'section',
      { class: 'report-part' },
      el('h3', {}, title),
      el('p', { class: 'note' }, explain),
      items.length ? el('ol', {}, ...items) : message('Nothing here.'),
    );
  const marks = { inaccuracy: '?!', mistake: '?', blunder: '??' } as const;
  side.replaceChildren(
    el('h2', {}, `Where ${r.user} should study`),
    section(
      'Where you lose by the engine',
      r.analysed.evaluated
        ? `The player's moves that lose win% against the engine's best move, by the points they are expected to cost (games × win% lost). ${r.analysed.evaluated} of ${r.analysed.positions} positions analysed.`
        : `No position is analysed yet: run mirror analyse --user ${r.user}.`,
      r.engine.map(x =>
        el(
          'li',
          { class: 'item engine-loss' },
          placeLink(host, x, [x.played]),
          el(
            'p',
            {},
            el('b', {}, x.played.san),
            el('span', { class: `judgement ${x.judgement}` }, marks[x.judgement]),
            ` loses ${x.winLoss.toFixed(1)} win% (${evalText(x.evalBefore)} → ${evalText(x.evalAfter)}) · ${x.expectedLoss.toFixed(1)} points expected lost over ${games(x.played.games)}, scored ${pct(x.played.score)}`,
          ),
          x.best
            ? el(
                'p',
                { class: 'better' },
                'Better: ',
                el('b', {}, x.best.san),
                x.bestPlayed ? ` — played in ${games(x.bestPlayed.games)}, scored ${pct(x.bestPlayed.score)}` : ' — never played',
              )
            : null,
        ),
      ),
    ),
    section(
      "The opponents' mistakes you do not punish",
      "An opponent's move that loses at least 10 win% points, after which your usual reply gives back half of it or more.",
      r.unpunished.map(x =>
        el(
          'li',
          { class: 'item unpunished' },
          placeLink(host, x, [x.mistake, x.reply]),
          el(
            'p',
            {},
            'They play ',
            el('b', {}, x.mistake.san),
            el('span', { class: `judgement ${x.judgement}` }, marks[x.judgement]),
            ` (${x.gift.toFixed(1)} win% given, ${games(x.mistake.games)}); you reply `,
            el('b', {}, x.reply.san),
            ` in ${pct(x.reply.share)} of them and give back ${x.givenBack.toFixed(1)} (${evalText(x.evals[1])} → ${evalText(x.evals[2])})`,
          ),
          x.best ? el('p', { class: 'better' }, 'Punish with ', el('b', {}, x.best.san)) : null,
        ),
      ),
    ),
    section(
      'When you leave your book',
      "The engine's evaluation where your tree ends (positions you reached often, from which no move is reached as often), per opening, as your win%.",
      r.book.map(b =>
        el(
          'li',
          { class: 'item book-exit' },
          el(
            'p',
            {},
            el('b', {}, b.opening ? `${b.opening.eco} ${b.opening.name}` : 'Unnamed'),
            ` as ${b.color}: ${b.win.toFixed(1)}% over ${games(b.games)} (${b.analysed} of ${b.exits} exits analysed)`,
          ),
          el(
            'ul',
            { class: 'choices' },
            ...b.worst.map(x => el('li', {}, `${x.win.toFixed(1)}% (${evalText(x.eval)}, ${games(x.games)}) `, placeLink(host, x))),
          ),
        ),
      ),
    ),
    section(
      'Costly positions',
      "Reached often and scored well below the player's average with that colour, where the player had a real choice.",
      r.costly.map(c =>
        el(
          'li',
          { class: 'item' },
          placeLink(host, c),
          el('p', {}, `cost ${c.cost.toFixed(1)} games · ${pct(c.deficit)} below the average ${pct(c.average)}`),
          choices(c.played),
        ),
      ),
    ),
    section(
      'Deviations',
      'Positions where the player varies their own move.',
      r.deviations.map(d => el('li', { class: 'item' }, placeLink(host, d), choices(d.choices))),
    ),
    section(
      'Surprises',
      "Rare opponent replies after which you lose more often than after the others (Fisher's exact test; Benjamini-Hochberg q below 0.05 over every rare reply tested).",
      r.surprises.map(x =>
        el(
          'li',
          { class: 'item' },
          placeLink(host, x, [x.reply]),
          choices([x.reply]),
          el('p', { class: 'note' }, `Others: ${pct(x.othersScore)} over ${games(x.othersGames)} · p = ${x.pValue.toPrecision(2)}, q = ${x.qValue.toPrecision(2)}`),
        ),
      ),
    ),
    section(
      'Repertoire drift',
      "Positions where your main move's share changed by 10 points or more between the earlier and the later half of your games there (Fisher's exact test; Benjamini-Hochberg q below 0.05), with the share of each move by quarter (the last eight quarters, the four moves played most).",
      r.drift.map(d =>
        el(
          'li',
          { class: 'item' },
          placeLink(host, d),
          el(
            'p',
            {},
            el('b', {}, d.san),
            ` ${pct(d.earlier[0] / Math.max(1, d.earlier[1]))} of ${games(d.earlier[1])} earlier, ${pct(d.later[0] / Math.max(1, d.later[1]))} of ${d.later[1]} later · q = ${d.qValue.toPrecision(2)}`,
          ),
          driftTable(d),
        ),
      ),
    ),
    section(
      'Where you burn your clock',
      "Positions where the player thinks longest, against their average move in games of that time class (from the games' clocks).",
      r.clock.slow.map(x =>
        el(
          'li',
          { class: 'item slow' },
          placeLink(host, x),
          el(
            'p',
            {},
            `${x.timeClass}: ${x.seconds.toFixed(1)} s a move here, ${x.ratio.toFixed(1)}× the usual ${x.usualSeconds.toFixed(1)} s · ${x.trouble} in time trouble`,
          ),
        ),
      ),
    ),
    el(
      'section',
      { class: 'report-part' },
      el('h3', {}, 'In time trouble or not'),
      el('p', { class: 'note' }, 'The score in games with a move made under 10% of the base time (or 10 s) left, and in the other timed games.'),
      r.clock.overall.trouble.games + r.clock.overall.calm.games ? troubleTable(r) : message('No game with clocks.'),
    ),
    el(
      'section',
      { class: 'report-part' },
      el('h3', {}, 'How much of your clock a move takes'),
      el(
        'p',
        { class: 'note' },
        "The share of the clock left spent on a move, by stage of the game and how much of the clock is left: the mirror's pace where the player's games have no time.",
      ),
      r.clock.pace.some(p => p.moves > 0) ? paceTable(r) : message('No game with clocks.'),
    ),
  );
}
