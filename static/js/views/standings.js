// The standings: this server's boards (most wins, best average, rating, Hall of Fame and Hall of Shame, a
// page at a time) at /standings, and one player's record at /standings/{name} (figures, the rating and its
// chart, best and worst game, a chart of their recent totals, the recent games), every game linked to its replay. A function of the state: what it
// fetched and which board it shows are the page's part of it (``ctx.page``, changed by ``actions.setPage``), so
// a render while a name is typed in the search (the board arriving, a language switch) leaves the field alone.
import * as api from '../api.js';
import { html, nothing, svg } from '../html.js';
import { errorText, num, t } from '../i18n.js';
import { decimal, percent } from '../figures.js';
import { formatDate } from './history.js';
import { STANDINGS_PATH, gamePath, pageLink, playerLink, playerPath } from './standings-links.js';
import { keptPart, loadHolder, passkeysTemplate } from './passkeys.js';
import '../i18n-standings.js';
import '../i18n-table.js';

export const PAGE_SIZE = 10;
// The boards, each with its REST query: players by a figure, or games by their final total.
// ``crowned``: whether a board's first row has earned the crown (never a hall of shame's, nor a 'most wins'
// leader without a win).
const BOARDS = {
  wins: { kind: 'players', by: 'wins', crowned: (row) => row.wins > 0 },
  average: { kind: 'players', by: 'average', crowned: () => true },
  rating: { kind: 'players', by: 'rating', crowned: () => true },
  fame: { kind: 'games', order: 'best', crowned: () => true },
  shame: { kind: 'games', order: 'worst', crowned: () => false },
};

/** The page's part of the state, as a fresh page starts it. */
const pageOf = (ctx) => ({ board: 'wins', offset: 0, data: null, record: null, error: null, loading: false, missing: false,
  claimedOnly: false, holder: null, ...ctx.page });

/** Fetch the board ``board`` at ``offset`` (a newer ask, or another page, makes the answer stale). */
async function loadBoard(ctx, actions, board, offset) {
  const route = ctx.route;
  const query = BOARDS[board];
  const claimed = pageOf(ctx).claimedOnly;
  const stale = () => ctx.route !== route || pageOf(ctx).board !== board || pageOf(ctx).offset !== offset
    || pageOf(ctx).claimedOnly !== claimed;
  try {
    const data = query.kind === 'players'
      ? await api.playersBoard(query.by, PAGE_SIZE, offset, claimed)
      : await api.gamesBoard(query.order, PAGE_SIZE, offset);
    if (!stale()) actions.setPage({ data, error: null, loading: false });
  } catch (err) {
    if (!stale()) actions.setPage({ error: errorText(err), loading: false });
  }
}

async function loadRecord(ctx, actions) {
  const route = ctx.route;
  try {
    const record = await api.playerRecord(route.name);
    if (ctx.route === route) actions.setPage({ record, error: null, missing: false });
  } catch (err) {
    if (ctx.route !== route) return;
    if (err.status === 404) actions.setPage({ missing: true });
    else actions.setPage({ error: errorText(err) });
  }
}

/** Each visit fetches afresh (a language switch only draws again). */
export function enter(ctx, actions) {
  if (ctx.route.passkeys) loadHolder(ctx, actions);
  else if (ctx.route.name) {
    loadRecord(ctx, actions);
    loadHolder(ctx, actions);
  }
  else {
    actions.setPage({ loading: true });
    loadBoard(ctx, actions, 'wins', 0);
  }
}

/** Previous / next and 'Page 2 of 5' for a {total, limit, offset} page. */
function pager(data, onOffset) {
  const { total, limit, offset } = data;
  const pages = Math.max(1, Math.ceil(total / limit));
  if (pages <= 1) return nothing;
  return html`<nav class="pager" aria-label=${t('pages')} data-testid="board-pager"><button type="button" class="secondary small"
    data-testid="board-prev" ?disabled=${offset <= 0} @click=${() => onOffset(Math.max(0, offset - limit))}><span class="flip"
    aria-hidden="true">‹ </span>${t('prev_page')}</button><span class="pager-text" data-testid="board-page">${
    t('page_of', { page: Math.floor(offset / limit) + 1, pages })}</span><button type="button" class="secondary small"
    data-testid="board-next" ?disabled=${offset + limit >= total} @click=${() => onOffset(offset + limit)}>${
    t('next_page')}<span class="flip" aria-hidden="true"> ›</span></button></nav>`;
}

/** Whether row ``i`` of a page of ``board`` is the board's first and has earned the crown. */
const crowned = (board, data, i) => data.offset + i === 0 && BOARDS[board].crowned(data.items[i]);

function rank(board, data, i) {
  return html`<td class="rank">${crowned(board, data, i) ? html`<span class="crown" aria-hidden="true">♛ </span>` : nothing}${
    num(data.offset + i + 1)}</td>`;
}

const leader = (board, data, i) => (crowned(board, data, i) ? 'leader' : nothing);

function playersTable(board, data, actions) {
  const kept = html` <span class="tag kept-tag" data-testid="kept-tag" title=${t('kept_name')}><span aria-hidden="true">🔒</span> ${
    t('kept_tag')}</span>`;
  return html`<table class="score-sheet leaderboard standings-board" data-testid="players-board"><thead><tr><th scope="col">#</th><th
    scope="col" class="start">${t('col_player')}</th><th scope="col">${t('col_games')}</th><th scope="col">${t('col_wins')}</th><th
    scope="col" class="wide-only">${t('col_win_rate')}</th><th scope="col">${t('col_average')}</th></tr></thead><tbody>${
    data.items.map((row, i) => html`<tr class=${leader(board, data, i)} data-testid="board-row">${rank(board, data, i)}<th scope="row"
    class="start">${playerLink(row.name, actions)}${row.claimed ? kept : nothing}</th><td>${num(row.games)}</td><td data-testid="cell-wins">${decimal(row.wins, 2)}</td><td
    class="wide-only">${percent(row.win_rate)}</td><td data-testid="cell-average">${decimal(row.average_total, 1)}</td></tr>`)}</tbody></table>`;
}

/** The board by rating: each rated name's rating (with its uncertainty) and rated games. */
function ratingTable(board, data, actions) {
  return html`<table class="score-sheet leaderboard standings-board" data-testid="rating-board"><thead><tr><th scope="col">#</th><th
    scope="col" class="start">${t('col_player')}</th><th scope="col">${t('col_rating')}</th><th scope="col">${t('col_rated')
    }</th></tr></thead><tbody>${data.items.map((row, i) => html`<tr class=${leader(board, data, i)} data-testid="board-row">${
    rank(board, data, i)}<th scope="row" class="start">${playerLink(row.name, actions)}${row.rating.provisional ? html`<span
    class="sub">${t('provisional')}</span>` : nothing}</th><td class="nowrap" data-testid="cell-rating"><span class="rating-cell">${
    decimal(row.rating.ordinal, 1)}</span> <span class="rating-sigma">± ${decimal(row.rating.sigma, 1)}</span></td><td
    data-testid="cell-rated-games">${num(row.rating.games)}</td></tr>`)}</tbody></table>`;
}

function gamesTable(board, data, actions) {
  return html`<table class="score-sheet leaderboard standings-board" data-testid="games-board"><thead><tr><th scope="col">#</th><th
    scope="col" class="start">${t('col_player')}</th><th scope="col">${t('col_total')}</th><th scope="col" class="wide-only">${
    t('col_when')}</th><th scope="col"><span class="sr-only">${t('watch_replay')}</span></th></tr></thead><tbody>${
    data.items.map((row, i) => html`<tr class=${leader(board, data, i)} data-testid="board-row">${rank(board, data, i)}<th scope="row"
    class="start">${playerLink(row.name, actions)}<span class="sub">${t('place_of', { place: row.place, n: row.players })}</span></th><td
    data-testid="cell-total">${num(row.total)}</td><td class="when wide-only"><time datetime=${row.finished_at}>${
    formatDate(row.finished_at)}</time></td><td>${replayLink(row.game, actions)}</td></tr>`)}</tbody></table>`;
}

function replayLink(gameId, actions, words = false) {
  return pageLink(gamePath(gameId), actions, {
    class: words ? 'secondary small' : 'replay-icon', testid: `game-link-${gameId}`, label: words ? null : t('replay_of'),
    title: t('replay_of'),
  }, html`<span aria-hidden="true">▶</span>${words ? ` ${t('watch_replay')}` : nothing}`);
}

/** The search: the name typed is the field's own (no render touches it); Enter or the button opens it. */
function findForm(actions) {
  const submit = (event) => {
    event.preventDefault();
    const input = event.currentTarget.querySelector('[data-testid=find-player]');
    const name = input.value.trim();
    if (name) actions.navigate(playerPath(name));
    else input.focus();
  };
  return html`<form class="find-player" role="search" @submit=${submit}><label for="find-player">${t('find_player')}</label><div
    class="inline"><input id="find-player" name="name" maxlength="64" autocomplete="off" dir="auto" placeholder=${t('name_placeholder')}
    data-testid="find-player"><button type="submit" class="primary" data-testid="find-button">${t('find_button')}</button></div></form>`;
}

function boardsPage(ctx, actions) {
  const view = pageOf(ctx);
  const pick = (key) => {
    if (view.board === key) return;
    actions.setPage({ board: key, offset: 0, data: null, loading: true });
    loadBoard(ctx, actions, key, 0);
  };
  const turnTo = (offset) => {
    actions.setPage({ offset, loading: true });
    loadBoard(ctx, actions, view.board, offset);
  };
  const claimedOnly = (event) => {
    actions.setPage({ claimedOnly: event.currentTarget.checked, offset: 0, data: null, loading: true });
    loadBoard(ctx, actions, view.board, 0);
  };
  const toggle = BOARDS[view.board].kind === 'players' ? html`<label class="check claimed-only"><input type="checkbox"
    data-testid="claimed-only" .checked=${view.claimedOnly} @change=${claimedOnly}> ${t('claimed_only')}</label>` : nothing;
  const tabs = html`<div class="board-tabs" role="group" aria-label=${t('boards')}>${Object.keys(BOARDS).map((key) => html`<button
    type="button" class="board-tab" data-testid=${`board-${key}`} aria-pressed=${view.board === key ? 'true' : 'false'}
    @click=${() => pick(key)}>${t(`board_${key}`)}</button>`)}</div>`;
  let body;
  if (view.error) body = html`<p class="error" role="alert">${view.error}</p>`;
  else if (!view.data) body = html`<p class="loading" role="status">${t('loading')}</p>`;
  else if (!view.data.items.length) {
    body = html`<p class="hint" data-testid="no-records">${t(view.board === 'rating' ? 'no_ratings' : 'no_records')}</p>`;
  }
  else {
    let table;
    if (view.board === 'rating') table = ratingTable(view.board, view.data, actions);
    else if (BOARDS[view.board].kind === 'players') table = playersTable(view.board, view.data, actions);
    else table = gamesTable(view.board, view.data, actions);
    body = html`<div class="sheet-wrap">${table}</div>${pager(view.data, turnTo)}`;
  }
  return html`<div class="standings" data-testid="standings" data-board=${view.board} data-offset=${view.data?.offset ?? nothing}
    aria-busy=${view.loading ? 'true' : nothing}><div class="page-head"><h1>${t('standings')}</h1></div><p class="hint on-felt public-note"
    data-testid="public-note">${t('standings_public')}</p><div class="standings-grid"><section class="panel"
    aria-labelledby="board-title"><h2 class="sr-only" id="board-title">${t(`board_${view.board}`)}</h2>${tabs}<p class="hint board-hint">${
    t(`board_${view.board}_hint`)}</p>${toggle}${body}</section><section class="panel find-panel">${findForm(actions)}</section></div></div>`;
}

// ---- a player's record --------------------------------------------------------------------------------

function figure(label, value, testid) {
  return html`<div class="figure"><dt>${label}</dt><dd data-testid=${testid}>${value}</dd></div>`;
}

function gameCard(kind, game, actions) {
  if (!game) return nothing;
  return html`<div class=${`game-card ${kind}`} data-testid=${`${kind}-game`}><h3>${t(`${kind}_game`)}</h3><p class="game-card-total">${
    t('game_total', { n: game.total })}</p><p class="hint"><time datetime=${game.finished_at}>${formatDate(game.finished_at)}</time></p>${
    replayLink(game.game, actions, true)}</div>`;
}

const CHART = { width: 320, height: 120, pad: 14, left: 30 };

/** A line of ``values`` (oldest to newest) over a light grid, the higher value the higher point; time runs
 * with the reading (right to left in Persian). ``dot(i)``: the class of point i; ``format``: an axis label. */
function lineChart({ values, rtl, caption, label, testid, data, dot = () => 'chart-dot', format = num }) {
  if (values.length < 2) return nothing;
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || 1;
  const { width, height, pad, left } = CHART;
  const plotStart = rtl ? pad : left;
  const plotEnd = rtl ? width - left : width - pad;
  const step = (plotEnd - plotStart) / (values.length - 1);
  const x = (i) => (rtl ? plotEnd - i * step : plotStart + i * step);
  const y = (v) => pad + (height - 2 * pad) * (1 - (v - low) / span);
  const axisX = rtl ? width - left + 6 : left - 6;
  const anchor = rtl ? 'start' : 'end';
  const axis = (v) => svg`<text x=${axisX} y=${y(v) + 4} text-anchor=${anchor} class="chart-axis">${format(v)}</text>`;
  const grid = (v) => svg`<line x1=${plotStart} x2=${plotEnd} y1=${y(v)} y2=${y(v)} class="chart-grid"></line>`;
  const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  return html`<figure class="chart" data-testid=${testid}><figcaption>${caption}</figcaption><svg
    viewBox=${`0 0 ${width} ${height}`} role="img" class="totals-chart" data-testid=${`${testid}-svg`}
    aria-label=${label} data-values=${data}>${grid(low)}${grid(high)}${axis(low)}${high !== low ? axis(high) : nothing}<polyline
    points=${points} class="chart-line" fill="none"></polyline>${values.map((v, i) => svg`<circle cx=${x(i).toFixed(1)}
    cy=${y(v).toFixed(1)} r="3.5" class=${dot(i)}></circle>`)}</svg></figure>`;
}

/** The totals of the recent games (oldest to newest); a won game's point is gold. */
export function totalsChart(recent, rtl) {
  const games = [...recent].reverse();
  const totals = games.map((g) => g.total);
  return lineChart({
    values: totals,
    rtl,
    testid: 'chart',
    data: totals.join(','),
    caption: html`${t('chart_title')} <span class="hint">${`(${t('chart_lower')})`}</span>`,
    label: t('chart_label', { n: games.length, list: totals.map((v) => num(v)).join(t('list_sep')) }),
    dot: (i) => (games[i].win > 0 ? 'chart-dot won' : 'chart-dot'),
  });
}

/** The rating after each of the latest rated games (oldest to newest). */
export function ratingChart(history, rtl) {
  const values = [...history].reverse().map((p) => p.ordinal);
  return lineChart({
    values,
    rtl,
    testid: 'rating-chart',
    data: values.join(','),
    caption: html`${t('rating_chart_title')} <span class="hint">${`(${t('rating_chart_higher')})`}</span>`,
    label: t('rating_chart_label', { n: values.length, list: values.map((v) => decimal(v, 1)).join(t('list_sep')) }),
    format: (v) => decimal(v, 1),
  });
}

/** A name's rating: the conservative figure with its uncertainty, provisional for its first games, and its
 * line over the latest rated games; or a word on how a name gets one. */
function ratingBlock(record, rtl) {
  const rating = record.rating;
  if (!rating) {
    return html`<div class="rating-block" data-testid="rating"><h2>${t('rating')}</h2><p class="hint" data-testid="rating-none">${
      t('rating_none')}</p></div>`;
  }
  return html`<div class="rating-block" data-testid="rating"><h2>${t('rating')}</h2><p class="rating-line"><span class="rating-value"
    data-testid="rating-value">${decimal(rating.ordinal, 1)}</span> <span class="rating-sigma" data-testid="rating-sigma"
    title=${t('rating_sigma_title')}>± ${decimal(rating.sigma, 1)}</span>${rating.provisional ? html` <span class="tag provisional"
    data-testid="rating-provisional">${t('provisional')}</span>` : nothing}</p><p class="hint" data-testid="rating-games">${
    t(rating.provisional ? 'rating_games_provisional' : 'rating_games', { n: rating.games })} ${t('rating_means')}</p>${
    ratingChart(record.rating_history, rtl)}</div>`;
}

function recentRow(game, actions) {
  const shared = game.win > 0 && game.win < 1;
  return html`<li class=${game.win > 0 ? 'recent-game won' : 'recent-game'} data-testid=${`recent-${game.game}`}><div class="recent-head">${
    game.win > 0 ? html`<span class="crown" aria-hidden="true">♛</span>` : nothing}<span class="recent-total">${
    t('game_total', { n: game.total })}</span>${game.win > 0 ? html`<span class="tag gold">${t(shared ? 'won_shared' : 'won')}</span>` : nothing}${
    game.perfect ? html`<span class="tag gold">${t('perfect')}</span>` : nothing}<span class="spacer"></span>${
    replayLink(game.game, actions)}</div><div class="recent-foot"><span>${t('place_of', { place: game.place, n: game.players })}</span>${
    game.rounds_out_first ? html`<span>${t('out_first_n', { n: game.rounds_out_first })}</span>` : nothing}<span class="spacer"></span><time
    class="hint" datetime=${game.finished_at}>${formatDate(game.finished_at)}</time></div></li>`;
}

function playerPage(ctx, actions) {
  const view = pageOf(ctx);
  const name = ctx.route.name;
  const record = view.record;
  const back = pageLink(STANDINGS_PATH, actions, { class: 'secondary small', testid: 'back-to-standings' },
    html`<span class="flip" aria-hidden="true">‹</span> ${t('standings')}`);
  const wrap = (content) => html`<div class="standings player-record" data-testid="player-standings"><div class="page-head"><h1><span
    dir="auto" data-testid="player-name">${record?.name ?? name}</span></h1><span class="spacer"></span>${back}</div><p
    class="hint on-felt public-note" data-testid="public-note">${t('standings_public')}</p>${content}</div>`;
  if (view.missing) {
    return wrap(html`<section class="panel" data-testid="player-missing"><p>${t('player_not_found', { name })}</p>${findForm(actions)}</section>`);
  }
  if (view.error) return wrap(html`<section class="panel"><p class="error" role="alert">${view.error}</p></section>`);
  if (!record) return wrap(html`<p class="loading" role="status">${t('loading')}</p>`);
  const rtl = document.documentElement.dir === 'rtl';
  const date = (iso) => html`<time datetime=${iso}>${formatDate(iso)}</time>`;
  return wrap(html`${keptPart(record, view.holder, actions)}<div class="standings-grid"><section class="panel" aria-label=${t('standings_of', { name: record.name })}><dl
    class="figures">${figure(t('fig_games'), num(record.games), 'fig-games')}${figure(t('fig_wins'), decimal(record.wins, 2), 'fig-wins')}${
    figure(t('fig_win_rate'), percent(record.win_rate), 'fig-win-rate')}${figure(t('fig_average'), decimal(record.average_total, 1), 'fig-average')}${
    figure(t('fig_out_first'), num(record.rounds_out_first), 'fig-out-first')}${figure(t('fig_perfect'), num(record.perfect_games), 'fig-perfect')
    }</dl>${ratingBlock(record, rtl)}<div class="game-cards">${gameCard('best', record.best, actions)}${gameCard('worst', record.worst, actions)}</div>${
    totalsChart(record.recent, rtl)}<dl class="figures dates">${figure(t('fig_first'), date(record.first_played), 'fig-first')}${
    figure(t('fig_last'), date(record.last_played), 'fig-last')}</dl></section><section class="panel" aria-labelledby="recent-title"><h2
    id="recent-title">${t('recent_games')} <span class="count-pill">${num(record.recent.length)}</span></h2><ul class="recent-list"
    data-testid="recent-list">${record.recent.map((g) => recentRow(g, actions))}</ul></section></div>`);
}

/** The standings page (the boards, or one player's record) as the state has it. */
export function standingsTemplate(ctx, actions) {
  if (ctx.route.passkeys) return passkeysTemplate(ctx, actions);
  return ctx.route.name ? playerPage(ctx, actions) : boardsPage(ctx, actions);
}
