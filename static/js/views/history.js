// A table's history page: every game played there (date, players, totals, winners, status) and the
// leaderboard, a page at a time, with a replay link for each finished game. A function of the state: what it
// fetched and which pages it shows are the page's part of it (``ctx.page``, changed by ``actions.setPage``).
import * as api from '../api.js';
import { html, nothing } from '../html.js';
import { errorText, lang, num, t } from '../i18n.js';
import { decimal } from '../figures.js';
import { botIcon, holdersName } from './faces.js';
import { playerLink } from './standings-links.js';
import '../i18n-standings.js';
import '../i18n-table.js';

export const PAGE_SIZE = 10;

export function formatDate(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const locale = lang() === 'fa' ? 'fa-IR' : 'en-GB';
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

/** Fetch the games and the leaderboard at the offsets asked for (``ask``: {gamesOffset, boardOffset}). */
async function load(ctx, actions, ask = {}) {
  const route = ctx.route;
  const page = { gamesOffset: 0, boardOffset: 0, ...ctx.page, ...ask };
  actions.setPage({ ...ask, loading: true });
  let found;
  try {
    const [games, board] = await Promise.all([
      api.roomGames(route.code, PAGE_SIZE, page.gamesOffset),
      api.leaderboard(route.code, PAGE_SIZE, page.boardOffset),
    ]);
    found = { games, board, error: null };
  } catch (err) {
    found = { error: err.status === 404 ? t('err_not_found') : errorText(err) };
  }
  if (ctx.route === route) actions.setPage({ ...found, loading: false });
}

/** Each visit fetches the newest games (a language switch only draws them again). */
export function enter(ctx, actions) {
  load(ctx, actions);
}

/** Previous / next buttons and 'Page 2 of 5' for a {total, limit, offset} page. */
function pager(pageData, testid, onOffset) {
  const { total, limit, offset } = pageData;
  const pages = Math.max(1, Math.ceil(total / limit));
  if (pages <= 1) return nothing;
  const current = Math.floor(offset / limit) + 1;
  return html`<nav class="pager" aria-label=${t('pages')} data-testid=${`${testid}-pager`}><button type="button"
    class="secondary small" data-testid=${`${testid}-prev`} ?disabled=${offset <= 0}
    @click=${() => onOffset(Math.max(0, offset - limit))}><span class="flip" aria-hidden="true">‹ </span>${t('prev_page')}</button><span
    class="pager-text" data-testid=${`${testid}-page`}>${t('page_of', { page: current, pages })}</span><button type="button"
    class="secondary small" data-testid=${`${testid}-next`} ?disabled=${offset + limit >= total}
    @click=${() => onOffset(offset + limit)}>${t('next_page')}<span class="flip" aria-hidden="true"> ›</span></button></nav>`;
}

function gameRow(game, actions) {
  const winners = new Set(game.winners);
  const finished = game.status === 'finished';
  const ended = game.status === 'ended'; // by the host, before it was over: no winners, no replay
  const replayPath = `/r/${game.room}/replay/${game.id}`;
  return html`<li class=${finished || ended ? 'game-row finished' : 'game-row playing'} data-testid=${`game-${game.id}`}><div
    class="game-head"><span class="game-no">${t('game_n', { n: game.number })}</span><span class=${finished || ended ? 'tag' : 'tag gold'}
    data-testid=${`status-${game.id}`}>${t(finished ? 'status_finished' : ended ? 'status_ended' : 'status_playing')}</span><span
    class="spacer"></span><time class="game-date" datetime=${game.created_at}>${formatDate(game.finished_at ?? game.created_at)}</time></div><ul
    class="game-players">${game.players.map((p) => html`<li class=${[winners.has(p.seat) ? 'won' : '', p.holders?.length > 1 ? 'held' : '']
    .filter(Boolean).join(' ') || nothing}>${winners.has(p.seat)
    ? html`<span class="crown" role="img" aria-label=${t('winner')}>♛</span>` : nothing}${p.bot ? botIcon() : nothing}<span class="name"
    dir="auto" data-testid=${`player-${game.id}-${p.seat}`}>${holdersName(p)}</span><span class="game-total">${t('points', { n: game.totals[p.seat] ?? 0 })}</span></li>`)}</ul><div
    class="game-foot"><span class="hint">${t('rounds_played', { n: game.rounds_played })}</span><span class="spacer"></span>${finished
    ? html`<a class="primary small" href=${replayPath} data-testid=${`replay-${game.id}`}
      @click=${(e) => { e.preventDefault(); actions.navigate(replayPath); }}>▶ ${t('watch_replay')}</a>`
    : ended ? nothing : html`<span class="hint">${t('replay_after')}</span>`}</div></li>`;
}

/** The series' first row wears the crown once it has a win. */
const crowned = (board, i) => board.offset + i === 0 && board.items[i].wins > 0;

function leaderboardTable(board, actions) {
  if (!board.items.length) return html`<p class="hint" data-testid="no-leaders">${t('no_leaders')}</p>`;
  return html`<div class="sheet-wrap"><table class="score-sheet leaderboard" data-testid="leaderboard"><thead><tr><th
    scope="col">#</th><th scope="col" class="start">${t('col_player')}</th><th scope="col">${t('col_games')}</th><th
    scope="col">${t('col_wins')}</th><th scope="col">${t('col_avg')}</th></tr></thead><tbody>${board.items.map((row, i) => html`<tr
    class=${crowned(board, i) ? 'leader' : nothing}><td>${num(board.offset + i + 1)}</td><th scope="row" class="start">${
    crowned(board, i) ? html`<span class="crown" aria-hidden="true">♛ </span>` : nothing}${playerLink(row.name, actions)}</th><td>${
    num(row.games)}</td><td>${decimal(row.wins, 2)}</td><td>${decimal(row.average_total, 1)}</td></tr>`)}</tbody></table></div>`;
}

/** The history page as the state has it. */
export function historyTemplate(ctx, actions) {
  const code = ctx.route.code;
  const view = ctx.page ?? {};
  const roomPath = `/r/${code}`;
  const head = html`<div class="page-head"><h1>${t('history_title')} <span class="room-code" dir="ltr">${code}</span></h1><span
    class="spacer"></span><a class="secondary small" href=${roomPath} data-testid="back-to-table"
    @click=${(e) => { e.preventDefault(); actions.navigate(roomPath); }}>${t('back_to_table')}</a></div>`;
  let body;
  if (view.error) body = html`<section class="panel"><p class="error" role="alert">${view.error}</p></section>`;
  else if (!view.games) body = html`<p class="loading" role="status">${t('loading')}</p>`;
  else {
    const games = view.games;
    body = html`<div class="history-grid"><section class="panel" aria-labelledby="games-title"><h2 id="games-title">${
      t('games_title')} <span class="count-pill">${num(games.total)}</span></h2>${games.items.length
      ? html`<ul class="game-list" data-testid="game-list">${games.items.map((g) => gameRow(g, actions))}</ul>`
      : html`<p class="hint" data-testid="no-games">${t('no_games')}</p>`}${
      pager(games, 'games', (offset) => load(ctx, actions, { gamesOffset: offset }))}</section><section class="panel"
      aria-labelledby="board-title"><h2 id="board-title">${t('leaderboard')}</h2>${leaderboardTable(view.board, actions)}${
      pager(view.board, 'board', (offset) => load(ctx, actions, { boardOffset: offset }))}</section></div>`;
  }
  return html`<div class="history" data-testid="history" aria-busy=${view.loading && view.games && !view.error ? 'true' : nothing}>${head}${body}</div>`;
}
