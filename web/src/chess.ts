// Rules through chessops: positions from move lists, legal destinations for the board,
// moves typed or dragged, and UCI the API understands (castling as e1g1).

import { Chess, castlingSide, normalizeMove } from 'chessops/chess';
import { chessgroundDests } from 'chessops/compat';
import { makeFen } from 'chessops/fen';
import { makeSan, parseSan } from 'chessops/san';
import type { Color, Move, NormalMove, Square } from 'chessops/types';
import { makeSquare, parseSquare, parseUci, squareRank } from 'chessops/util';
import type { Config } from 'chessground/config';
import type { Key } from 'chessground/types';

export { Chess, makeSan };
export type { Move };

/** A line of play from the start position. */
export interface Line {
  pos: Chess;
  sans: string[];
  /** The last move as two squares, for the board's highlight. */
  last?: [Key, Key];
  /** Every position of the line, the start included, for repetitions. */
  keys: string[];
}

/** Plays `ucis` from the start; the moves up to the first illegal one and what it was. */
export function play(ucis: string[]): { line: Line; bad?: string } {
  const pos = Chess.default();
  const line: Line = { pos, sans: [], keys: [repetitionKey(pos)] };
  for (const uci of ucis) {
    const move = parseUci(uci);
    const legal = move && normalizeMove(pos, move);
    if (!legal || !pos.isLegal(legal)) return { line, bad: uci };
    line.sans.push(makeSan(pos, legal));
    line.last = ends(uci);
    pos.play(legal);
    line.keys.push(repetitionKey(pos));
  }
  return { line };
}

/** The squares a UCI move goes from and to. */
export function ends(uci: string): [Key, Key] {
  return [uci.slice(0, 2) as Key, uci.slice(2, 4) as Key];
}

/** The board's legal destinations. */
export function dests(pos: Chess): Map<Key, Key[]> {
  return chessgroundDests(pos) as Map<Key, Key[]>;
}

/** UCI as the API writes it: castling is the king's two-square move. */
export function standardUci(pos: Chess, move: Move): string {
  const m = move as NormalMove;
  const side = castlingSide(pos, m);
  if (side) {
    const rank = squareRank(m.from);
    const file = side === 'h' ? 6 : 2;
    return makeSquare(m.from) + makeSquare((rank * 8 + file) as Square);
  }
  return makeSquare(m.from) + makeSquare(m.to) + (m.promotion ? m.promotion[0] : '');
}

/** A move dragged on the board (promotions to a queen), as legal chessops move. */
export function fromBoard(pos: Chess, orig: Key, dest: Key): Move | undefined {
  const from = parseSquare(orig);
  const to = parseSquare(dest);
  if (from === undefined || to === undefined) return undefined;
  const piece = pos.board.get(from);
  const lastRank = squareRank(to) === 0 || squareRank(to) === 7;
  const move: NormalMove = {
    from,
    to,
    promotion: piece?.role === 'pawn' && lastRank ? 'queen' : undefined,
  };
  const legal = normalizeMove(pos, move);
  return pos.isLegal(legal) ? legal : undefined;
}

/** A move typed by a person: SAN (`Nf3`, `O-O`, `exd5`) or UCI (`g1f3`). */
export function fromText(pos: Chess, text: string): Move | undefined {
  const t = text.trim();
  if (!t) return undefined;
  const san = parseSan(pos, t);
  if (san) return san;
  const uci = parseUci(t.toLowerCase());
  if (!uci) return undefined;
  const legal = normalizeMove(pos, uci);
  return pos.isLegal(legal) ? legal : undefined;
}

/** A move of `pos` given in UCI, in SAN (the UCI itself if it is not legal here). */
export function sanOf(pos: Chess, uci: string): string {
  const move = fromText(pos, uci);
  return move ? makeSan(pos, move) : uci;
}

/** The position's identity for repetition: placement, side, castling, a legal en passant. */
export function repetitionKey(pos: Chess): string {
  const fen = makeFen(pos.toSetup()).split(' ');
  let ep = '-';
  if (pos.epSquare !== undefined) {
    for (const [from, to] of pos.allDests()) {
      if (pos.board.get(from)?.role === 'pawn' && to.has(pos.epSquare)) ep = fen[3];
    }
  }
  return [fen[0], fen[1], fen[2], ep].join(' ');
}

export function fen(pos: Chess): string {
  return makeFen(pos.toSetup());
}

/** Move number prefix of ply `i` (0-based): `1.` or `1...`. */
export function moveNumber(i: number, always = false): string {
  const n = Math.floor(i / 2) + 1;
  if (i % 2 === 0) return `${n}.`;
  return always ? `${n}...` : '';
}

/**
 * The board showing `line` from `orientation`'s side, its last move and check marked.
 * `mover` may move (a move of theirs goes to `onMove` as the API's UCI), or nobody.
 */
export function boardAt(
  line: Line,
  orientation: Color,
  mover: Color | undefined,
  onMove: (uci: string) => void = () => {},
): Config {
  return {
    fen: fen(line.pos),
    orientation,
    turnColor: line.pos.turn,
    lastMove: line.last,
    check: line.pos.isCheck(),
    movable: {
      free: false,
      color: mover,
      dests: mover ? dests(line.pos) : new Map(),
      events: {
        after: (orig, dest) => {
          const move = fromBoard(line.pos, orig, dest);
          if (move) onMove(standardUci(line.pos, move));
        },
      },
    },
    drawable: { autoShapes: [] },
  };
}
