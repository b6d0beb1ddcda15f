// The home page's "Your tables": every table this browser keeps a seat token for, asked about in one request
// (POST /api/my-tables, the tokens in its body) once the page is drawn and again whenever the page is shown
// again: its players, whose turn it is, the time left at a paced table, unread chat; one tap opens it. What the
// server answers is the page's part of the state (``ctx.page.mine``); a table it answers as gone is forgotten.
import * as api from '../api.js';
import { html, nothing } from '../html.js';
import { repeat } from '../html-directives.js';
import { num, t } from '../i18n.js';
import { chatReadUntil, forgetTable, savedTables } from '../storage.js';
import { avatarEl, displayName } from './faces.js';
import '../i18n-tables.js';

const MAX_ASKED = 50; // the server answers for this many tables in one request
const REFRESH_MS = 5 * 60 * 1000; // asked again this often while the page stays open and shown
const SHOWN_AGAIN_MS = 2000; // a page shown again asks again, at most this often
const ORDER = { mine: 0, playing: 1, lobby: 2, finished: 3 };

let ctx = null;
let actions = null;
let asking = null; // the request under way
let askedAt = -Infinity; // performance.now() of the last request
let wired = false;

/** The page was entered: ask once it is drawn (the list never holds up the page's first paint). */
export function enterTables(state, theActions) {
  ctx = state;
  actions = theActions;
  if (!wired) {
    wired = true;
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible' && performance.now() - askedAt > SHOWN_AGAIN_MS) refresh();
    });
    setInterval(() => {
      if (document.visibilityState !== 'visible' || ctx?.route.view !== 'home') return;
      if (performance.now() - askedAt > REFRESH_MS) refresh();
      else if (ctx.page.mine?.tables.some((table) => table.due_at)) actions.rerender(); // the time left
    }, 60 * 1000);
  }
  if (savedTables().length) requestAnimationFrame(() => setTimeout(refresh, 0));
}

/** Ask the server about every kept token (the newest first is unknown: the first 50 the browser lists). */
async function refresh() {
  if (ctx?.route.view !== 'home' || asking) return;
  const route = ctx.route;
  const kept = savedTables().slice(0, MAX_ASKED);
  if (!kept.length) return;
  const body = kept.map(({ code, token }) => {
    const read = chatReadUntil(code);
    return read ? { code, token, chat_read: read } : { code, token };
  });
  askedAt = performance.now();
  asking = api.myTables(body);
  try {
    const answer = await asking;
    for (const code of answer.gone) forgetTable(code);
    if (ctx.route !== route) return; // another page meanwhile
    // The server's clock against this device's: deadlines are counted down on the server's.
    const skew = Date.parse(answer.server_time) - Date.now();
    actions.setPage({ mine: { tables: answer.tables, skew }, mineFailed: false });
  } catch {
    if (ctx.route === route) actions.setPage({ mineFailed: true });
  } finally {
    asking = null;
  }
}

/** A name inside a sentence, isolated (FSI … PDI): a Latin name keeps its place in a Persian sentence. */
const isolated = (name) => `\u2068${name}\u2069`;

/** Where a table stands for you, for the list's order: your turn, a game on, the lobby, over. */
function standing(table) {
  if (table.your_turn) return 'mine';
  return table.status;
}

/** Your turns first (the soonest deadline first), then games on, lobbies, and finished tables. */
function ordered(tables) {
  const due = (table) => (table.due_at ? Date.parse(table.due_at) : Infinity);
  return [...tables].sort((a, b) => ORDER[standing(a)] - ORDER[standing(b)] || due(a) - due(b));
}

/** The time left on the turn, in the page's language: '5 h left', '40 min left', 'Time is up'. */
function timeLeft(table, skew) {
  const left = (Date.parse(table.due_at) - (Date.now() + skew)) / 1000;
  if (left <= 0) return { text: t('mt_time_up'), low: true };
  if (left < 3600) return { text: t('mt_minutes_left', { n: Math.max(1, Math.ceil(left / 60)) }), low: true };
  return { text: t('mt_hours_left', { n: Math.floor(left / 3600) }), low: left < 3 * 3600 };
}

function stateTag(table) {
  if (table.held === 'bot') return html`<span class="tag" data-testid="mt-state">${t('mt_bot_plays')}</span>`;
  if (table.held === 'asked') return html`<span class="tag" data-testid="mt-state">${t('mt_asked')}</span>`;
  if (table.your_turn) return html`<span class="tag gold" data-testid="mt-state">${t('mt_your_turn')}</span>`;
  if (table.status === 'lobby') return html`<span class="tag" data-testid="mt-state">${t('mt_lobby')}</span>`;
  if (table.status === 'finished') return html`<span class="tag" data-testid="mt-state">${t('mt_over')}</span>`;
  const mover = table.players.find((p) => p.seat === table.turn);
  return mover ? html`<span class="tag" data-testid="mt-state">${t('mt_turn_of', { name: isolated(displayName(mover)) })}</span>` : nothing;
}

function players(table) {
  return html`<ul class="mt-players">${table.players.map((p) => html`<li class=${p.you ? 'you' : ''}>${avatarEl(p)}<span
    class="name" dir="auto">${displayName(p)}</span>${p.you ? html`<span class="mt-you">(${t('mt_you')})</span>` : nothing}</li>`)}</ul>`;
}

function row(table, skew) {
  // Names are unique at a table: the host's is yours when your seat bears it.
  const yours = table.players.find((p) => p.you)?.name === table.host;
  const title = yours ? t('mt_your_table') : t('mt_table_of', { name: isolated(table.host) });
  const left = table.due_at ? timeLeft(table, skew) : null;
  const meta = [
    table.status === 'playing' && table.round ? t('mt_round', { n: table.round }) : null,
    table.pace === 'live' ? null : t('pace_hours', { n: table.pace }),
  ].filter(Boolean).join(t('mt_meta_sep'));
  const unread = table.chat.unread;
  const open = (event) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return; // a new tab: the link's
    event.preventDefault();
    actions.navigate(`/r/${table.code}`);
  };
  return html`<li><a class=${table.your_turn ? 'mt-table mine' : 'mt-table'} href=${`/r/${table.code}`} @click=${open}
    data-testid=${`my-table-${table.code}`}><span class="mt-head"><span
    class="mt-title">${title}</span><span class="mt-code" dir="ltr">${table.code}</span><span class="spacer"></span>${
    stateTag(table)}</span>${players(table)}<span class="mt-foot">${meta ? html`<span class="mt-meta">${meta}</span>` : nothing}<span
    class="spacer"></span>${left ? html`<span class=${left.low ? 'mt-left low' : 'mt-left'} data-testid="mt-left">${left.text}</span>` : nothing}${
    unread > 0 ? html`<span class="mt-unread" data-testid="mt-unread" aria-hidden="true" title=${t('mt_unread_label', { n: unread })}>💬 ${
    num(unread)}</span><span class="sr-only">${t('mt_unread_label', { n: unread })}</span>` : nothing}</span></a></li>`;
}

function list(tables, skew) {
  return html`<ul class="mt-list">${repeat(tables, (table) => table.code, (table) => row(table, skew))}</ul>`;
}

/** The section, as the page's state has it: nothing for a browser with no table; while the first answer is on
 * its way, a line that holds the section's place. */
export function tablesTemplate(state) {
  const mine = state.page.mine;
  if (!mine && !savedTables().length) return nothing;
  let body;
  if (!mine) {
    body = state.page.mineFailed
      ? html`<p class="hint">${t('mt_failed')} <button type="button" class="link" @click=${refresh}>${t('mt_retry')}</button></p>`
      : html`<p class="hint" role="status">${t('mt_loading')}</p>`;
  } else if (!mine.tables.length) {
    return nothing;
  } else {
    const sorted = ordered(mine.tables);
    const going = sorted.filter((table) => table.status !== 'finished');
    const over = sorted.filter((table) => table.status === 'finished');
    body = html`${going.length ? list(going, mine.skew) : nothing}${over.length ? html`<details class="mt-over"><summary>${
      t('mt_finished', { n: over.length })}</summary>${list(over, mine.skew)}</details>` : nothing}`;
  }
  return html`<section class="panel my-tables" aria-labelledby="my-tables-title" data-testid="my-tables"><h2
    id="my-tables-title">${t('mt_title')}</h2>${body}</section>`;
}
