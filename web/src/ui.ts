// Small DOM helpers: elements built from data, never from HTML strings.

type Attrs = Record<string, string | number | boolean | undefined>;
type Child = Node | string | number | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === 'class') e.className = String(v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    e.append(typeof c === 'number' ? String(c) : c);
  }
  return e;
}

export const pct = (x: number): string => `${Math.round(x * 100)}%`;

export const count = (n: number): string => n.toLocaleString('en-US');

/** `n` games, in words: "1 game", "1,855 games". */
export const games = (n: number): string => `${count(n)} game${n === 1 ? '' : 's'}`;

/** A duration as people write it (the CLI's `duration_text`): 1.2 s, 3 min 20 s, 2 h 5 min, 2 d 4 h. */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  if (seconds < 59.95) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  const [big, small, names] =
    whole < 3600
      ? [Math.floor(whole / 60), whole % 60, ['min', 's']]
      : whole < 86400
        ? [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), ['h', 'min']]
        : [Math.floor(whole / 86400), Math.floor((whole % 86400) / 3600), ['d', 'h']];
  return small === 0 ? `${big} ${names[0]}` : `${big} ${names[0]} ${small} ${names[1]}`;
}

/** A win/draw/loss bar, the player's results from their side. */
export function resultBar(wins: number, draws: number, losses: number): HTMLElement {
  const n = wins + draws + losses;
  const part = (cls: string, k: number, what: string) => {
    const share = n ? k / n : 0;
    const span = el('span', { class: cls, title: `${count(k)} ${what}` }, share >= 0.12 ? pct(share) : '');
    span.style.width = `${share * 100}%`;
    return span;
  };
  return el(
    'div',
    { class: 'bar', 'aria-label': `${wins} won, ${draws} drawn, ${losses} lost` },
    part('win', wins, 'won'),
    part('draw', draws, 'drawn'),
    part('loss', losses, 'lost'),
  );
}

export function message(text: string, cls = 'note'): HTMLElement {
  return el('p', { class: cls }, text);
}
