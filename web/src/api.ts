// The HTTP API of `mirror serve`, typed as the page uses it.

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export async function getJson<T>(path: string, params?: URLSearchParams): Promise<T> {
  const url = params && [...params.keys()].length ? `${path}?${params}` : path;
  const resp = await fetch(url, { headers: { accept: 'application/json' } });
  const text = await resp.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(`${path} answered ${resp.status} with no JSON`, resp.status);
  }
  if (!resp.ok) {
    const error = (body as { error?: string }).error ?? `${path} answered ${resp.status}`;
    throw new ApiError(error, resp.status);
  }
  return body as T;
}

export interface Player {
  name: string;
  games: number;
}

export interface Opening {
  eco: string;
  name: string;
}

export interface ExploreMove {
  uci: string;
  san: string;
  white: number;
  draws: number;
  black: number;
  averageOpponentRating: number | null;
  performance: number | null;
  score: { value: number; low: number; high: number; fewGames: boolean };
  opening: Opening | null;
  lastPlayed: string | null;
  /** The time the move took where the games' clocks say; null when none does. */
  time: { timed: number; averageSeconds: number; trouble: number } | null;
  /** The evaluation after the move (`mirror analyse`); null when not analysed. */
  eval: Eval | null;
  /** Win% points the move loses against the best move; null unless both positions are evaluated. */
  winLoss: number | null;
  /** lichess's mark for that loss. */
  judgement: 'inaccuracy' | 'mistake' | 'blunder' | null;
}

/** A position's evaluation, as lichess's cloud evaluations give it: from White's side. */
export interface Eval {
  cp?: number;
  mate?: number;
  depth: number;
  best: string | null;
  source: 'engine' | 'comment';
}

export interface RecentGame {
  id: string;
  winner: 'white' | 'black' | null;
  speed: string;
  mode: string;
  white: { name: string; rating: number | null };
  black: { name: string; rating: number | null };
  year: number | null;
  month: string | null;
  uci: string;
  /** The game's page on Chess.com or lichess, where known. */
  url: string | null;
  /** The moves the game played before it reached the position (maybe in another order). */
  ply: number;
}

/** `/api/v1/game`: one stored game, to replay. */
export interface Game {
  id: string;
  url: string | null;
  white: { name: string; rating: number | null };
  black: { name: string; rating: number | null };
  winner: 'white' | 'black' | null;
  result: '1-0' | '0-1' | '1/2-1/2';
  speed: string;
  mode: string;
  date: string | null;
  /** The player's colour in the game. */
  color: 'white' | 'black' | null;
  opening: Opening | null;
  moves: { uci: string; san: string; seconds: number | null; clock: number | null }[];
}

export interface Explore {
  white: number;
  draws: number;
  black: number;
  moves: ExploreMove[];
  recentGames: RecentGame[];
  opening: Opening | null;
  /** The position's evaluation; null when not analysed. */
  eval: Eval | null;
}

export type Source =
  | {
      kind: 'book';
      policy: string;
      tier?: number;
      rule: string;
      games: number;
      wins: number;
      draws: number;
      losses: number;
      probability: number;
    }
  | { kind: 'fallback'; policy: string; detail: string }
  | { kind: 'endgame'; ending: string; mateIn: number; keeping: number; legal: number };

export interface MoveAnswer {
  uci: string;
  san: string;
  fen: string;
  /** Where the move came from, in a chess player's words. */
  words: string;
  /** The engine's full account. */
  explanation: string;
  source: Source;
}

/** How long the player would take in a position (`/api/v1/pace`). */
export interface PaceAnswer {
  seconds: number;
  source: 'book' | 'model' | 'clock' | 'none';
  timed: number | null;
  share: number | null;
  capped: boolean;
  detail: string;
}

export interface ReportMove {
  uci: string;
  san: string;
  games: number;
  wins: number;
  draws: number;
  losses: number;
  share: number;
  score: number;
  low: number;
  high: number;
}

export interface Place {
  moves: string[];
  fen: string;
  color: 'white' | 'black';
  opening: Opening | null;
  games: number;
  score: number;
  low: number;
  high: number;
}

/** Each item of the report is a position (its fields inline) with what the list adds. */
export interface Report {
  user: string;
  averageWhite: number | null;
  averageBlack: number | null;
  costly: (Place & { average: number; deficit: number; cost: number; played: ReportMove[] })[];
  deviations: (Place & { choices: ReportMove[] })[];
  /** Rare replies after which the player loses more often (Fisher's exact test, Benjamini-Hochberg). */
  surprises: (Place & { reply: ReportMove; othersScore: number; othersGames: number; pValue: number; qValue: number; test: string })[];
  /** Where the main move's share changed; shares by quarter, the moves in UCI. */
  drift: (Place & {
    quarters: { quarter: string; games: number; shares: [string, number][] }[];
    uci: string;
    san: string;
    earlier: [number, number];
    later: [number, number];
    pValue: number;
    qValue: number;
    test: string;
  })[];
  /** Where the player burns their clock. */
  clock: {
    slow: (Place & { timeClass: string; seconds: number; usualSeconds: number; ratio: number; trouble: number })[];
    overall: TroubleSplit;
    openings: TroubleSplit[];
    /** Twelve cells, stage by stage: the share of the clock left spent on a move. */
    pace: { stage: string; clock: string; moves: number; share: number | null }[];
  };
  /** Where you lose by the engine: the player's moves that lose against its best move. */
  engine: (Place & {
    line: string;
    played: ReportMove;
    winLoss: number;
    expectedLoss: number;
    judgement: 'inaccuracy' | 'mistake' | 'blunder';
    evalBefore: Eval;
    evalAfter: Eval;
    best: { uci: string; san: string } | null;
    bestPlayed: ReportMove | null;
  })[];
  /** How much of the report's ground `mirror analyse` has evaluated. */
  analysed: { evaluated: number; positions: number };
  /** The opponents' mistakes the player does not punish. */
  unpunished: (Place & {
    line: string;
    mistake: ReportMove;
    gift: number;
    judgement: 'mistake' | 'blunder';
    reply: ReportMove;
    givenBack: number;
    best: { uci: string; san: string } | null;
    evals: [Eval, Eval, Eval];
  })[];
  /** The evaluation where the player leaves their book, per opening line. */
  book: {
    opening: Opening | null;
    color: 'white' | 'black';
    exits: number;
    analysed: number;
    games: number;
    win: number;
    worst: (Place & { line: string; eval: Eval; win: number })[];
  }[];
}

/** A score over some games (null without games). */
export interface GamesScore {
  games: number;
  score: number | null;
  low: number | null;
  high: number | null;
}

/** The score in games with a move in time trouble, and in the other timed games. */
export interface TroubleSplit {
  opening: string | null;
  trouble: GamesScore;
  calm: GamesScore;
}

/** One move of a prepared line, with its mover's numbers at the position. */
export interface PrepStep {
  by: 'user' | 'opponent';
  san: string;
  positionGames: number;
  games: number;
  wins: number;
  draws: number;
  losses: number;
  share: number;
  score: number;
  scoreLow: number;
  scoreHigh: number;
  /** Win% the move loses against the engine's best, where analysed. */
  winLoss: number | null;
  judgement: 'inaccuracy' | 'mistake' | 'blunder' | null;
}

export interface PrepLine {
  moves: string[];
  uci: string[];
  probability: number;
  opening: Opening | null;
  steps: PrepStep[];
  end: 'depth' | 'userTreeEnds' | 'opponentTreeEnds' | 'opponentTreeThins';
  endGames: number | null;
  suggestions: {
    ply: number;
    played: [string, string];
    playedScore: number;
    playedGames: number;
    instead: [string, string];
    insteadScore: number;
    insteadGames: number;
    /** `engine`: the usual move loses 5 win% more; `interval`: the scores' intervals do not overlap. */
    backing: 'engine' | 'interval';
    playedLoss: number | null;
    insteadLoss: number | null;
  }[];
}

/** `/api/v1/prep`: the lines where the player's tree meets the opponent's. */
export interface Prep {
  user: string;
  opponent: string;
  color: 'white' | 'black';
  lines: PrepLine[];
  /** The opponent's moves the engine says lose, likeliest first. */
  aims: {
    moves: string[];
    uci: string[];
    san: string;
    share: number;
    games: number;
    reach: number;
    winLoss: number;
    judgement: 'inaccuracy' | 'mistake' | 'blunder';
    best: string | null;
  }[];
}

/** An ingest run by the server (`/api/v1/imports/{id}`). */
export interface Job {
  id: number;
  what: string;
  player: string | null;
  state: 'waiting' | 'running' | 'done' | 'failed' | 'cancelled';
  monthsTotal: number | null;
  monthsDone: number;
  gamesRead: number;
  gamesNew: number;
  invalid: number;
  errors: string[];
  log: string[];
  logDropped: number;
  elapsedMs: number;
  /** Games of a PGN left out as other players', with the names most often in them. */
  leftOut: { games: number; names: { name: string; games: number }[] } | null;
}

/** A POST whose answer is JSON, with the server's write token. */
export async function post<T>(path: string, body: BodyInit, type: string, token?: string): Promise<T> {
  return send<T>('POST', path, token, body, type);
}

/** A DELETE whose answer is JSON, with the server's write token. */
export async function remove<T>(path: string, token?: string): Promise<T> {
  return send<T>('DELETE', path, token);
}

async function send<T>(method: string, path: string, token?: string, body?: BodyInit, type?: string): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (type) headers['content-type'] = type;
  if (token) headers.authorization = `Bearer ${token}`;
  const resp = await fetch(path, { method, headers, body });
  const text = await resp.text();
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new ApiError(`${path} answered ${resp.status} with no JSON`, resp.status);
  }
  if (!resp.ok) {
    throw new ApiError((answer as { error?: string }).error ?? `${path} answered ${resp.status}`, resp.status);
  }
  return answer as T;
}
