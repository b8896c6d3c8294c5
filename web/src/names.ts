// The names in a PGN file's White and Black tags, read in the browser before an upload,
// so that "Add a player" can suggest the other spellings of a player ("Kasparov, Gary",
// "Kasparov,G", "Kasparov, G."). chessops reads the PGN; a gzip file is inflated by the
// browser (DecompressionStream), a zstd one by fzstd; at most READ_LIMIT bytes of PGN
// text are read.

import { PgnParser } from 'chessops/pgn';
import { Decompress } from 'fzstd';

/** Bytes of PGN text read at most. */
export const READ_LIMIT = 64 << 20;

/** The names of a file's games, with how many games each plays in. */
export interface NamesRead {
  /** Each name as written, with its games. */
  names: Map<string, number>;
  /** Games read. */
  games: number;
  /** Whether the whole file was read (else the first READ_LIMIT bytes). */
  complete: boolean;
}

/** The file's bytes, inflated when it is gzip or zstd (known by their first bytes). */
async function* plain(f: File): AsyncGenerator<Uint8Array> {
  const head = new Uint8Array(await f.slice(0, 4).arrayBuffer());
  const gzip = head[0] === 0x1f && head[1] === 0x8b;
  const zstd = head[0] === 0x28 && head[1] === 0xb5 && head[2] === 0x2f && head[3] === 0xfd;
  if (gzip) {
    const reader = f.stream().pipeThrough(new DecompressionStream('gzip')).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  }
  const reader = f.stream().getReader();
  if (!zstd) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  }
  let out: Uint8Array[] = [];
  const inflate = new Decompress(chunk => {
    out.push(chunk);
  });
  for (;;) {
    const { done, value } = await reader.read();
    inflate.push(value ?? new Uint8Array(0), done);
    yield* out;
    out = [];
    if (done) return;
  }
}

/** The names in the White and Black tags of `f`'s games. */
export async function namesIn(f: File): Promise<NamesRead> {
  const names = new Map<string, number>();
  let games = 0;
  const parser = new PgnParser(game => {
    games += 1;
    for (const side of ['White', 'Black']) {
      const name = game.headers.get(side)?.trim();
      if (name && name !== '?') names.set(name, (names.get(name) ?? 0) + 1);
    }
  });
  const text = new TextDecoder();
  let read = 0;
  for await (const chunk of plain(f)) {
    read += chunk.length;
    parser.parse(text.decode(chunk, { stream: true }), { stream: true });
    if (read >= READ_LIMIT) return { names, games, complete: false };
  }
  parser.parse(text.decode());
  return { names, games, complete: true };
}

/** A name's words, for comparing spellings: lower case, letters only ("Kasparov,G" →
 * kasparov, g). */
const words = (name: string): string[] =>
  name
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter(w => w.length > 0);

/** The names of `read` that look like other spellings of `player` (a word of three
 * letters or more in common), most games first; the player's own spelling (any case)
 * is left out. */
export function spellingsOf(read: NamesRead, player: string, limit = 6): [string, number][] {
  const mine = new Set(words(player).filter(w => w.length >= 3));
  const own = player.trim().toLowerCase();
  return [...read.names]
    .filter(([name]) => name.toLowerCase() !== own && words(name).some(w => mine.has(w)))
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, limit);
}

/** The games of `player`'s own spelling (any case) in `read`. */
export function gamesOf(read: NamesRead, player: string): number {
  const own = player.trim().toLowerCase();
  let n = 0;
  for (const [name, games] of read.names) if (name.toLowerCase() === own) n += games;
  return n;
}
