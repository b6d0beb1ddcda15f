// The standings: this server's boards (most wins, best average, Hall of Fame and Hall of Shame, a page at a
// time) at /standings, and one player's record at /standings/{name} (figures, best and worst game, a chart
// of their recent totals, the recent games), every game linked to its replay.
import * as api from '../api.js';
import { h, mount, svg } from '../dom.js';
import { num, t } from '../i18n.js';
import { decimal, percent } from '../figures.js';
import { formatDate } from './history.js';
import { STANDINGS_PATH, gamePath, pageLink, playerLink, playerPath } from './standings-links.js';
import '../i18n-standings.js';

export const PAGE_SIZE = 10;
// The boards, each with its REST query: players by a figure, or games by their final total.
const BOARDS = {
  wins: { kind: 'players', by: 'wins' },
  average: { kind: 'players', by: 'average' },
  fame: { kind: 'games', order: 'best' },
  shame: { kind: 'games', order: 'worst' },
};

// What the page shows, kept across redraws (a language switch redraws without fetching again).
const view = { route: null, board: 'wins', offset: 0, data: null, record: null, error: null, loading: false, missing: false };

function errorWords(err) {
  if (err.code === 'offline') return t('err_offline');
  return t('error', { message: err.message || err.code });
}

async function loadBoard(route, rerender) {
  view.loading = true;
  const board = BOARDS[view.board];
  const asked = `${view.board} ${view.offset}`;
  const stale = () => view.route !== route || `${view.board} ${view.offset}` !== asked; // another was asked for since
  try {
    const data = board.kind === 'players'
      ? await api.playersBoard(board.by, PAGE_SIZE, view.offset)
      : await api.gamesBoard(board.order, PAGE_SIZE, view.offset);
    if (stale()) return;
    Object.assign(view, { data, error: null });
  } catch (err) {
    if (stale()) return;
    view.error = errorWords(err);
  } finally {
    view.loading = false;
  }
  rerender();
}

async function loadRecord(route, rerender) {
  try {
    const record = await api.playerRecord(route.name);
    if (view.route !== route) return;
    Object.assign(view, { record, error: null, missing: false });
  } catch (err) {
    if (view.route !== route) return;
    if (err.status === 404) view.missing = true;
    else view.error = errorWords(err);
  }
  rerender();
}

/** Previous / next and 'Page 2 of 5' for a {total, limit, offset} page. */
function pager(data, onOffset) {
  const { total, limit, offset } = data;
  const pages = Math.max(1, Math.ceil(total / limit));
  if (pages <= 1) return null;
  return h('nav.pager', { 'aria-label': t('pages'), 'data-testid': 'board-pager' },
    h('button.secondary.small', {
      type: 'button', 'data-testid': 'board-prev', disabled: offset <= 0,
      onclick: () => onOffset(Math.max(0, offset - limit)),
    }, h('span.flip', { 'aria-hidden': 'true' }, '‹ '), t('prev_page')),
    h('span.pager-text', { 'data-testid': 'board-page' }, t('page_of', { page: Math.floor(offset / limit) + 1, pages })),
    h('button.secondary.small', {
      type: 'button', 'data-testid': 'board-next', disabled: offset + limit >= total,
      onclick: () => onOffset(offset + limit),
    }, t('next_page'), h('span.flip', { 'aria-hidden': 'true' }, ' ›')));
}

function rank(data, i) {
  return h('td.rank', {}, data.offset + i === 0 ? h('span.crown', { 'aria-hidden': 'true' }, '♛ ') : null, num(data.offset + i + 1));
}

function playersTable(data, actions) {
  return h('table.score-sheet.leaderboard.standings-board', { 'data-testid': 'players-board' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, '#'),
      h('th', { scope: 'col', class: 'start' }, t('col_player')),
      h('th', { scope: 'col' }, t('col_games')),
      h('th', { scope: 'col' }, t('col_wins')),
      h('th', { scope: 'col', class: 'wide-only' }, t('col_win_rate')),
      h('th', { scope: 'col' }, t('col_average')))),
    h('tbody', {}, data.items.map((row, i) => h('tr', { class: data.offset + i === 0 ? 'leader' : '', 'data-testid': 'board-row' },
      rank(data, i),
      h('th', { scope: 'row', class: 'start' }, playerLink(row.name, actions)),
      h('td', {}, num(row.games)),
      h('td', { 'data-testid': 'cell-wins' }, decimal(row.wins, 2)),
      h('td', { class: 'wide-only' }, percent(row.win_rate)),
      h('td', { 'data-testid': 'cell-average' }, decimal(row.average_total, 1))))));
}

function gamesTable(data, actions) {
  return h('table.score-sheet.leaderboard.standings-board', { 'data-testid': 'games-board' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, '#'),
      h('th', { scope: 'col', class: 'start' }, t('col_player')),
      h('th', { scope: 'col' }, t('col_total')),
      h('th', { scope: 'col', class: 'wide-only' }, t('col_when')),
      h('th', { scope: 'col' }, h('span.sr-only', {}, t('watch_replay'))))),
    h('tbody', {}, data.items.map((row, i) => h('tr', { class: data.offset + i === 0 ? 'leader' : '', 'data-testid': 'board-row' },
      rank(data, i),
      h('th', { scope: 'row', class: 'start' }, playerLink(row.name, actions),
        h('span.sub', {}, t('place_of', { place: row.place, n: row.players }))),
      h('td', { 'data-testid': 'cell-total' }, num(row.total)),
      h('td.when', { class: 'wide-only' }, h('time', { datetime: row.finished_at }, formatDate(row.finished_at))),
      h('td', {}, replayLink(row.game, actions))))));
}

function replayLink(gameId, actions, words = false) {
  return pageLink(words ? 'a.secondary.small' : 'a.replay-icon', gamePath(gameId), actions, {
    'data-testid': `game-link-${gameId}`, 'aria-label': words ? null : t('replay_of'), title: t('replay_of'),
  }, h('span', { 'aria-hidden': 'true' }, '▶'), words ? [' ', t('watch_replay')] : null);
}

function findForm(actions) {
  const input = h('input', {
    id: 'find-player', name: 'name', maxlength: 64, autocomplete: 'off', dir: 'auto',
    placeholder: t('name_placeholder'), 'data-testid': 'find-player',
  });
  return h('form.find-player', {
    role: 'search',
    onsubmit: (event) => {
      event.preventDefault();
      const name = input.value.trim();
      if (name) actions.navigate(playerPath(name));
      else input.focus();
    },
  },
  h('label', { for: 'find-player' }, t('find_player')),
  h('div.inline', {}, input, h('button.primary', { type: 'submit', 'data-testid': 'find-button' }, t('find_button'))));
}

function boardsPage(container, ctx, actions, rerender) {
  const pick = (key) => {
    if (view.board === key) return;
    Object.assign(view, { board: key, offset: 0, data: null });
    rerender();
    loadBoard(ctx.route, rerender);
  };
  const tabs = h('div.board-tabs', { role: 'group', 'aria-label': t('boards') },
    Object.keys(BOARDS).map((key) => h('button.board-tab', {
      type: 'button', 'data-testid': `board-${key}`, 'aria-pressed': view.board === key ? 'true' : 'false',
      onclick: () => pick(key),
    }, t(`board_${key}`))));
  let body;
  if (view.error) body = h('p.error', { role: 'alert' }, view.error);
  else if (!view.data) body = h('p.loading', { role: 'status' }, t('loading'));
  else if (!view.data.items.length) body = h('p.hint', { 'data-testid': 'no-records' }, t('no_records'));
  else {
    const table = BOARDS[view.board].kind === 'players' ? playersTable(view.data, actions) : gamesTable(view.data, actions);
    body = [h('div.sheet-wrap', {}, table),
      pager(view.data, (offset) => { view.offset = offset; loadBoard(ctx.route, rerender); })];
  }
  mount(container, h('div.standings', {
    'data-testid': 'standings', 'data-board': view.board, 'data-offset': view.data?.offset ?? null, 'aria-busy': view.loading ? 'true' : null },
    h('div.page-head', {}, h('h1', {}, t('standings'))),
    h('p.hint.on-felt.public-note', { 'data-testid': 'public-note' }, t('standings_public')),
    h('div.standings-grid', {},
      h('section.panel', { 'aria-labelledby': 'board-title' },
        h('h2.sr-only', { id: 'board-title' }, t(`board_${view.board}`)),
        tabs,
        h('p.hint.board-hint', {}, t(`board_${view.board}_hint`)),
        body),
      h('section.panel.find-panel', {}, findForm(actions)))));
}

// ---- a player's record --------------------------------------------------------------------------------

function figure(label, value, testid) {
  return h('div.figure', {}, h('dt', {}, label), h('dd', { 'data-testid': testid }, value));
}

function gameCard(kind, game, actions) {
  if (!game) return null;
  return h('div.game-card', { class: kind, 'data-testid': `${kind}-game` },
    h('h3', {}, t(`${kind}_game`)),
    h('p.game-card-total', {}, t('game_total', { n: game.total })),
    h('p.hint', {}, h('time', { datetime: game.finished_at }, formatDate(game.finished_at))),
    replayLink(game.game, actions, true));
}

const CHART = { width: 320, height: 120, pad: 14, left: 30 };

/** The totals of the recent games (oldest to newest), a line over a light grid; time runs with the reading. */
export function totalsChart(recent, rtl) {
  const games = [...recent].reverse();
  if (games.length < 2) return null;
  const totals = games.map((g) => g.total);
  const low = Math.min(...totals);
  const high = Math.max(...totals);
  const span = Math.max(1, high - low);
  const { width, height, pad, left } = CHART;
  const plotStart = rtl ? pad : left;
  const plotEnd = rtl ? width - left : width - pad;
  const step = (plotEnd - plotStart) / (games.length - 1);
  const x = (i) => (rtl ? plotEnd - i * step : plotStart + i * step);
  const y = (v) => pad + (height - 2 * pad) * (1 - (v - low) / span); // higher total, higher point
  const axisX = rtl ? width - left + 6 : left - 6;
  const anchor = rtl ? 'start' : 'end';
  const label = (v) => svg('text', { x: axisX, y: y(v) + 4, 'text-anchor': anchor, class: 'chart-axis' }, document.createTextNode(num(v)));
  const points = games.map((g, i) => `${x(i).toFixed(1)},${y(g.total).toFixed(1)}`).join(' ');
  return h('figure.chart', { 'data-testid': 'chart' },
    h('figcaption', {}, t('chart_title'), ' ', h('span.hint', {}, `(${t('chart_lower')})`)),
    svg('svg', {
      viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'totals-chart', 'data-testid': 'chart-svg',
      'aria-label': t('chart_label', { n: games.length, list: totals.map((v) => num(v)).join(t('list_sep')) }),
      'data-totals': totals.join(','),
    },
    svg('line', { x1: plotStart, x2: plotEnd, y1: y(low), y2: y(low), class: 'chart-grid' }),
    svg('line', { x1: plotStart, x2: plotEnd, y1: y(high), y2: y(high), class: 'chart-grid' }),
    label(low), high !== low ? label(high) : null,
    svg('polyline', { points, class: 'chart-line', fill: 'none' }),
    ...games.map((g, i) => svg('circle', {
      cx: x(i).toFixed(1), cy: y(g.total).toFixed(1), r: 3.5, class: g.win > 0 ? 'chart-dot won' : 'chart-dot',
    }))));
}

function recentRow(game, actions) {
  const shared = game.win > 0 && game.win < 1;
  return h('li.recent-game', { 'data-testid': `recent-${game.game}`, class: game.win > 0 ? 'won' : '' },
    h('div.recent-head', {},
      game.win > 0 ? h('span.crown', { 'aria-hidden': 'true' }, '♛') : null,
      h('span.recent-total', {}, t('game_total', { n: game.total })),
      game.win > 0 ? h('span.tag.gold', {}, t(shared ? 'won_shared' : 'won')) : null,
      game.perfect ? h('span.tag.gold', {}, t('perfect')) : null,
      h('span.spacer'),
      replayLink(game.game, actions)),
    h('div.recent-foot', {},
      h('span', {}, t('place_of', { place: game.place, n: game.players })),
      game.rounds_out_first ? h('span', {}, t('out_first_n', { n: game.rounds_out_first })) : null,
      h('span.spacer'),
      h('time.hint', { datetime: game.finished_at }, formatDate(game.finished_at))));
}

function playerPage(container, ctx, actions) {
  const name = ctx.route.name;
  const record = view.record;
  const back = pageLink('a.secondary.small', STANDINGS_PATH, actions, { 'data-testid': 'back-to-standings' },
    h('span.flip', { 'aria-hidden': 'true' }, '‹'), ' ', t('standings'));
  const head = h('div.page-head', {},
    h('h1', {}, h('span', { dir: 'auto', 'data-testid': 'player-name' }, record?.name ?? name)),
    h('span.spacer'),
    back);
  const note = h('p.hint.on-felt.public-note', { 'data-testid': 'public-note' }, t('standings_public'));
  const wrap = (...children) => mount(container, h('div.standings.player-record', { 'data-testid': 'player-standings' }, head, note, ...children));
  if (view.missing) {
    wrap(h('section.panel', { 'data-testid': 'player-missing' },
      h('p', {}, t('player_not_found', { name })), findForm(actions)));
    return;
  }
  if (view.error) { wrap(h('section.panel', {}, h('p.error', { role: 'alert' }, view.error))); return; }
  if (!record) { wrap(h('p.loading', { role: 'status' }, t('loading'))); return; }
  const rtl = document.documentElement.dir === 'rtl';
  wrap(h('div.standings-grid', {},
    h('section.panel', { 'aria-label': t('standings_of', { name: record.name }) },
      h('dl.figures', {},
        figure(t('fig_games'), num(record.games), 'fig-games'),
        figure(t('fig_wins'), decimal(record.wins, 2), 'fig-wins'),
        figure(t('fig_win_rate'), percent(record.win_rate), 'fig-win-rate'),
        figure(t('fig_average'), decimal(record.average_total, 1), 'fig-average'),
        figure(t('fig_out_first'), num(record.rounds_out_first), 'fig-out-first'),
        figure(t('fig_perfect'), num(record.perfect_games), 'fig-perfect')),
      h('div.game-cards', {}, gameCard('best', record.best, actions), gameCard('worst', record.worst, actions)),
      totalsChart(record.recent, rtl),
      h('dl.figures.dates', {},
        figure(t('fig_first'), h('time', { datetime: record.first_played }, formatDate(record.first_played)), 'fig-first'),
        figure(t('fig_last'), h('time', { datetime: record.last_played }, formatDate(record.last_played)), 'fig-last'))),
    h('section.panel', { 'aria-labelledby': 'recent-title' },
      h('h2', { id: 'recent-title' }, t('recent_games'), ' ', h('span.count-pill', {}, num(record.recent.length))),
      h('ul.recent-list', { 'data-testid': 'recent-list' }, record.recent.map((g) => recentRow(g, actions))))));
}

export function renderStandings(container, ctx, actions) {
  const route = ctx.route;
  const rerender = () => { if (ctx.route === route) actions.rerender(); };
  if (view.route !== route) { // each visit (not a language switch) fetches afresh
    Object.assign(view, { route, data: null, record: null, error: null, missing: false, offset: 0 });
    if (route.name) loadRecord(route, rerender);
    else loadBoard(route, rerender);
  }
  if (route.name) playerPage(container, ctx, actions);
  else boardsPage(container, ctx, actions, rerender);
}
