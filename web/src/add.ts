// Add a player: a Chess.com or lichess account, or a PGN file, imported by the server
// while the page follows it (months, games, errors); and the new games of the chosen
// player, from the accounts recorded with it. Every import needs the server's token: the
// page of the user who started the server, on the same machine, gets it from the server
// (`/api/v1/session`); anyone else types it once (kept for this tab).

import { ApiError, type Job, getJson, post, remove } from './api';
import { type NamesRead, gamesOf, namesIn, spellingsOf } from './names';
import type { PageState } from './state';
import { count, el, games, message } from './ui';

export interface AddHost {
  state: PageState;
  go(next: Partial<PageState>, push?: boolean): void;
  /** Lists the players again (a new one appears in the picker). */
  reloadPlayers(): Promise<unknown>;
}

const TOKEN_KEY = 'mirror-token';
const POLL_MS = 400;

type Kind = 'chesscom' | 'lichess' | 'pgn';

function progressView(job: Job, cancel?: () => void): HTMLElement {
  const months =
    job.monthsTotal !== null
      ? el(
          'div',
          { class: 'months' },
          el('progress', { max: Math.max(job.monthsTotal, 1), value: job.monthsDone }),
          ` ${job.monthsDone} of ${job.monthsTotal} months`,
        )
      : null;
  const state = {
    waiting: 'waiting for the import before it',
    running: 'importing…',
    done: 'done',
    failed: 'stopped with errors',
    cancelled: 'cancelled (the games imported before are kept; importing again goes on from there)',
  }[job.state];
  const live = job.state === 'waiting' || job.state === 'running';
  const stop =
    live && cancel ? el('button', { type: 'button', id: 'add-cancel', title: 'stops after the games being written' }, 'Cancel') : null;
  stop?.addEventListener('click', () => {
    stop.disabled = true;
    cancel?.();
  });
  return el(
    'div',
    { class: `job ${job.state}`, id: 'add-progress', 'data-state': job.state },
    el('p', { class: 'status' }, `${job.what}: ${state} `, stop),
    months,
    el(
      'p',
      { class: 'counts' },
      el('span', { 'data-count': 'read' }, `${count(job.gamesRead)} games read`),
      ' · ',
      el('span', { 'data-count': 'new' }, `${count(job.gamesNew)} new`),
      job.invalid ? ` · ${count(job.invalid)} invalid, skipped` : '',
      ` · ${(job.elapsedMs / 1000).toFixed(1)} s`,
    ),
    job.errors.length ? el('ul', { class: 'error errors' }, ...job.errors.map(e => el('li', {}, e))) : null,
    el('pre', { class: 'log' }, job.log.slice(-12).join('\n')),
  );
}

/** What a PGN import left out, in words, with the names most often in those games; each
 * of the first three may be added as another spelling of the player (the same file again:
 * only the games not yet stored are added). */
function leftOutView(job: Job, addSpelling?: (name: string) => void): HTMLElement | null {
  const left = job.leftOut;
  if (!left || left.games === 0) return null;
  const who = job.player ?? 'the player';
  const names = left.names.slice(0, 3);
  return el(
    'div',
    { class: 'left-out', id: 'add-left-out' },
    el(
      'p',
      {},
      `${count(left.games)} ${left.games === 1 ? 'game was' : 'games were'} left out: neither White nor Black is called ${who} in them.`,
      names.length ? ' The names most often in them:' : '',
    ),
    names.length
      ? el(
          'ul',
          {},
          ...names.map(n => {
            const add = addSpelling
              ? el('button', { type: 'button', class: 'add-spelling', 'data-name': n.name }, `Add the games of “${n.name}” to ${who}`)
              : null;
            add?.addEventListener('click', () => addSpelling?.(n.name));
            return el('li', {}, `“${n.name}” in ${count(n.games)} ${n.games === 1 ? 'game' : 'games'} `, add);
          }),
        )
      : null,
  );
}

export function render(host: AddHost, side: HTMLElement): void {
  const kind = el(
    'select',
    { id: 'add-kind', 'aria-label': 'Where the games are' },
    el('option', { value: 'chesscom' }, 'Chess.com account'),
    el('option', { value: 'lichess' }, 'lichess account'),
    el('option', { value: 'pgn' }, 'PGN file'),
  );
  const name = el('input', { id: 'add-name', placeholder: 'username', autocomplete: 'off', required: true });
  // Plain, gzip or zstd: the server knows them by their first bytes.
  const file = el('input', {
    id: 'add-file',
    type: 'file',
    accept: '.pgn,.gz,.zst,application/x-chess-pgn,text/plain,application/gzip,application/zstd',
  });
  const alias = el('textarea', {
    id: 'add-alias',
    rows: 2,
    placeholder: 'other spellings in the file, one per line (optional)',
    autocomplete: 'off',
  });
  // The names found in the file chosen, and the spellings of the name typed among them.
  const found = el('div', { class: 'spellings', id: 'add-spellings' });
  const token = el('input', { id: 'add-token', type: 'password', placeholder: "the server's token", autocomplete: 'off' });
  token.value = sessionStorage.getItem(TOKEN_KEY) ?? '';
  const tokenRow = el('label', { class: 'row token', hidden: true }, 'Token ', token);
  const go = el('button', { id: 'add-go', type: 'submit' }, 'Import');
  const out = el('div', { class: 'add-out' });
  const form = el('form', { class: 'filters add' }, kind, name, file, alias, go, tokenRow, found);
  const setKind = () => {
    const pgn = (kind.value as Kind) === 'pgn';
    file.hidden = !pgn;
    alias.hidden = !pgn;
    found.hidden = !pgn;
    name.placeholder = pgn ? "the player's name in the games" : 'username';
  };
  setKind();
  kind.addEventListener('change', setKind);

  // The file's names, read once per file chosen.
  let read: { file: File; names: Promise<NamesRead> } | undefined;
  const spellings = (): string[] =>
    alias.value
      .split('\n')
      .map(a => a.trim())
      .filter(a => a.length > 0);
  const suggest = async () => {
    const f = file.files?.[0];
    if (!f || (kind.value as Kind) !== 'pgn') {
      found.replaceChildren();
      return;
    }
    if (read?.file !== f) read = { file: f, names: namesIn(f) };
    const asked = read;
    found.replaceChildren(message('Reading the names in the file…'));
    let names: NamesRead;
    try {
      names = await asked.names;
    } catch (e) {
      found.replaceChildren(message(`The names in the file could not be read (${(e as Error).message}); the import reads it all the same.`));
      return;
    }
    if (read !== asked) return; // another file was chosen meanwhile
    const who = name.value.trim();
    const scope = `${count(names.games)} games${names.complete ? '' : ' (the first part of the file)'}`;
    if (!who) {
      // No name yet: the names most often in the file, one click to take one.
      const top = [...names.names].sort((a, b) => b[1] - a[1]).slice(0, 5);
      found.replaceChildren(
        el('p', { class: 'note' }, `The names most often in the ${scope}:`),
        el(
          'ul',
          {},
          ...top.map(([n, g]) => {
            const use = el('button', { type: 'button', class: 'use-name', 'data-name': n }, `“${n}”, ${games(g)}`);
            use.addEventListener('click', () => {
              name.value = n;
              void suggest();
            });
            return el('li', {}, use);
          }),
        ),
      );
      return;
    }
    const others = spellingsOf(names, who);
    const own = gamesOf(names, who);
    const list = others.map(([n, g]) => {
      const box = el('input', { type: 'checkbox', class: 'spelling', 'data-name': n });
      box.checked = spellings().includes(n);
      box.addEventListener('change', () => {
        const kept = spellings().filter(a => a !== n);
        alias.value = (box.checked ? [...kept, n] : kept).join('\n');
      });
      return el('li', {}, el('label', {}, box, ` “${n}”, ${games(g)}`));
    });
    found.replaceChildren(
      el(
        'p',
        { class: 'note', id: 'add-own-games' },
        `“${who}” plays in ${games(own)} of the ${scope}.`,
        others.length ? ' Other spellings that look like it (tick those that are the same player):' : '',
      ),
      el('ul', {}, ...list),
    );
  };
  file.addEventListener('change', () => void suggest());
  name.addEventListener('change', () => void suggest());

  const user = host.state.user;
  const sync = user
    ? el('button', { id: 'add-sync', type: 'button' }, `Fetch the new games of ${user}`)
    : null;

  let busy = false;
  const run = async (start: () => Promise<Job>, addSpelling?: (name: string) => void): Promise<void> => {
    if (busy) return;
    busy = true;
    go.disabled = true;
    if (sync) sync.disabled = true;
    try {
      let job = await start();
      let cancelling = false;
      const cancel = () => {
        cancelling = true;
        void secret()
          .then(t => remove<Job>(`/api/v1/imports/${job.id}`, t))
          .catch((e: Error) => out.append(message(e.message, 'error')));
      };
      out.replaceChildren(progressView(job, cancel));
      while (job.state === 'waiting' || job.state === 'running') {
        await new Promise(r => setTimeout(r, POLL_MS));
        job = await getJson<Job>(`/api/v1/imports/${job.id}`);
        out.replaceChildren(progressView(job, cancelling ? undefined : cancel));
      }
      const dropped = leftOutView(job, addSpelling);
      if (dropped) out.append(dropped);
      await host.reloadPlayers();
      if (job.player && job.gamesNew + job.gamesRead > 0) {
        const player = job.player;
        out.append(
          el(
            'p',
            {},
            el('a', { href: `/?user=${encodeURIComponent(player)}`, id: 'add-explore' }, `Explore ${player}'s games`),
          ),
        );
      }
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        // A token kept from an earlier server (or mistyped): asked afresh next time.
        sessionStorage.removeItem(TOKEN_KEY);
        token.value = '';
        tokenRow.hidden = false;
        out.replaceChildren(message(`${e.message}. Enter the token and import again.`, 'error'));
      } else {
        out.replaceChildren(message((e as Error).message, 'error'));
      }
    } finally {
      busy = false;
      go.disabled = false;
      if (sync) sync.disabled = false;
    }
  };
  /** The write token: typed, kept for this tab, or given by the server to its owner's page. */
  const secret = async (): Promise<string | undefined> => {
    const typed = token.value.trim();
    if (typed) {
      sessionStorage.setItem(TOKEN_KEY, typed);
      return typed;
    }
    try {
      const given = await getJson<{ token: string }>('/api/v1/session');
      sessionStorage.setItem(TOKEN_KEY, given.token);
      return given.token;
    } catch {
      // Not the owner's page: the person types it (the 401 below says where it is).
      tokenRow.hidden = false;
      return undefined;
    }
  };

  /** The games of `who` (and of `others`, other spellings of the same player, one per
   * line) in `f`. */
  const upload = (f: File, who: string, others: string) => {
    const q = new URLSearchParams({ user: who });
    if (others) q.set('alias', others);
    void run(async () => post<Job>(`/api/v1/imports/pgn?${q}`, f, 'application/x-chess-pgn', await secret()), spelling =>
      upload(f, who, spelling),
    );
  };

  form.addEventListener('submit', e => {
    e.preventDefault();
    const who = name.value.trim();
    const k = kind.value as Kind;
    if (k === 'pgn') {
      const f = file.files?.[0];
      if (!f) {
        out.replaceChildren(message('Choose a PGN file.', 'error'));
        return;
      }
      upload(f, who, spellings().join('\n'));
    } else {
      void run(async () => post<Job>('/api/v1/imports', JSON.stringify({ [k]: who }), 'application/json', await secret()));
    }
  });
  sync?.addEventListener('click', () => {
    void run(async () => post<Job>('/api/v1/imports', JSON.stringify({ user }), 'application/json', await secret()));
  });

  side.replaceChildren(
    el('h2', {}, 'Add a player'),
    el(
      'p',
      { class: 'note' },
      'The server fetches the games (Chess.com asks for a contact: set MIRROR_CONTACT where it runs) ' +
        'or reads the file, and adds each game once: importing again adds only new games.',
    ),
    form,
    sync ? el('div', { class: 'controls' }, sync) : '',
    out,
  );
}
