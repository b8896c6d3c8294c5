// What the page shows, held in its URL: a view is a link.

export type View = 'explore' | 'play' | 'prep' | 'report' | 'add' | 'game' | 'drill';
export const SPEEDS = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence'];
export const SOURCES = ['chesscom', 'lichess', 'otb'];

export interface Filters {
  color: '' | 'white' | 'black';
  speeds: string[];
  rated: '' | 'true' | 'false';
  since: string;
  until: string;
  opponentRating: string;
  sources: string[];
}

export interface PageState {
  view: View;
  user: string;
  /** UCI moves from the start position. */
  moves: string[];
  filters: Filters;
  /** The side the person plays in the play view. */
  side: 'white' | 'black';
  /** The player prepared against in the prepare view. */
  opponent: string;
  /** The stored game replayed in the game view (its id, as the explorer lists it). */
  game: string;
  /** The moves of the game shown in the game view (0: the start position). */
  ply: number;
}

const list = (v: string | null): string[] =>
  (v ?? '')
    .split(/[ ,]+/)
    .map(s => s.trim())
    .filter(Boolean);

export function read(search: string = location.search): PageState {
  const q = new URLSearchParams(search);
  const view = q.get('view');
  const color = q.get('color');
  const rated = q.get('rated');
  return {
    view:
      view === 'play' || view === 'prep' || view === 'report' || view === 'add' || view === 'game' || view === 'drill'
        ? view
        : 'explore',
    user: q.get('user') ?? '',
    moves: list(q.get('moves')),
    filters: {
      color: color === 'white' || color === 'black' ? color : '',
      speeds: list(q.get('speeds')).filter(s => SPEEDS.includes(s)),
      rated: rated === 'true' || rated === 'false' ? rated : '',
      since: q.get('since') ?? '',
      until: q.get('until') ?? '',
      opponentRating: q.get('opponentRating') ?? '',
      sources: list(q.get('sources')).filter(s => SOURCES.includes(s)),
    },
    side: q.get('side') === 'black' ? 'black' : 'white',
    opponent: q.get('opponent') ?? '',
    game: q.get('game') ?? '',
    ply: Math.max(0, Math.floor(Number(q.get('ply') ?? 0)) || 0),
  };
}

/** The filters as API parameters (only those set). */
export function filterParams(f: Filters, into = new URLSearchParams()): URLSearchParams {
  if (f.color) into.set('color', f.color);
  if (f.speeds.length) into.set('speeds', f.speeds.join(','));
  if (f.rated) into.set('rated', f.rated);
  if (f.since) into.set('since', f.since);
  if (f.until) into.set('until', f.until);
  if (f.opponentRating) into.set('opponentRating', f.opponentRating);
  if (f.sources.length) into.set('sources', f.sources.join(','));
  return into;
}

export function href(s: PageState): string {
  const q = new URLSearchParams();
  if (s.view !== 'explore') q.set('view', s.view);
  if (s.user) q.set('user', s.user);
  if (s.view === 'add') return `/?${q.toString()}`;
  if (s.view === 'game') {
    q.set('game', s.game);
    q.set('ply', String(s.ply));
    return `/?${q.toString()}`;
  }
  if (s.moves.length) q.set('moves', s.moves.join(','));
  if (s.view === 'play') {
    q.set('side', s.side);
  } else {
    if (s.view === 'prep' && s.opponent) q.set('opponent', s.opponent);
    filterParams(s.filters, q);
  }
  const text = q.toString().replace(/%2C/g, ',');
  return text ? `/?${text}` : '/';
}
