// A table's history page: every game played there (date, players, totals, winners, status) and the
// leaderboard, a page at a time, with a replay link for each finished game.
import * as api from '../api.js';
import { h, mount } from '../dom.js';
import { lang, num, t } from '../i18n.js';
import { decimal } from '../figures.js';
import { botIcon, displayName } from './widgets.js';
import { playerLink } from './standings-links.js';
import '../i18n-standings.js';

export const PAGE_SIZE = 10;

// What the page shows, kept across redraws (a language switch redraws without fetching again).
const view = { route: null, code: null, games: null, board: null, gamesOffset: 0, boardOffset: 0, error: null, loading: false };

export function formatDate(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const locale = lang() === 'fa' ? 'fa-IR' : 'en-GB';
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

async function load(code, rerender) {
  view.loading = true;
  try {
    const [games, board] = await Promise.all([
      api.roomGames(code, PAGE_SIZE, view.gamesOffset),
      api.leaderboard(code, PAGE_SIZE, view.boardOffset),
    ]);
    if (view.code !== code) return;
    Object.assign(view, { games, board, error: null });
  } catch (err) {
    if (view.code !== code) return;
    view.error = err.status === 404 ? t('err_not_found') : err.code === 'offline' ? t('err_offline') : t('error', { message: err.message || err.code });
  } finally {
    view.loading = false;
  }
  rerender();
}

/** Previous / next buttons and 'Page 2 of 5' for a {total, limit, offset} page. */
function pager(pageData, testid, onOffset) {
  const { total, limit, offset } = pageData;
  const pages = Math.max(1, Math.ceil(total / limit));
  if (pages <= 1) return null;
  const current = Math.floor(offset / limit) + 1;
  return h('nav.pager', { 'aria-label': t('pages'), 'data-testid': `${testid}-pager` },
    h('button.secondary.small', {
      type: 'button', 'data-testid': `${testid}-prev`, disabled: offset <= 0,
      onclick: () => onOffset(Math.max(0, offset - limit)),
    }, h('span.flip', { 'aria-hidden': 'true' }, '‹ '), t('prev_page')),
    h('span.pager-text', { 'data-testid': `${testid}-page` }, t('page_of', { page: current, pages })),
    h('button.secondary.small', {
      type: 'button', 'data-testid': `${testid}-next`, disabled: offset + limit >= total,
      onclick: () => onOffset(offset + limit),
    }, t('next_page'), h('span.flip', { 'aria-hidden': 'true' }, ' ›')));
}

function gameRow(game, actions) {
  const winners = new Set(game.winners);
  const finished = game.status === 'finished';
  const ended = game.status === 'ended'; // by the host, before it was over: no winners, no replay
  const replayPath = `/r/${game.room}/replay/${game.id}`;
  return h('li.game-row', { 'data-testid': `game-${game.id}`, class: finished || ended ? 'finished' : 'playing' },
    h('div.game-head', {},
      h('span.game-no', {}, t('game_n', { n: game.number })),
      h('span.tag', { class: finished || ended ? '' : 'gold', 'data-testid': `status-${game.id}` },
        t(finished ? 'status_finished' : ended ? 'status_ended' : 'status_playing')),
      h('span.spacer'),
      h('time.game-date', { datetime: game.created_at }, formatDate(game.finished_at ?? game.created_at))),
    h('ul.game-players', {}, game.players.map((p) => h('li', { class: winners.has(p.seat) ? 'won' : '' },
      winners.has(p.seat) ? h('span.crown', { role: 'img', 'aria-label': t('winner') }, '♛') : null,
      p.bot ? botIcon() : null,
      h('span.name', { dir: 'auto' }, displayName(p)),
      h('span.game-total', {}, t('points', { n: game.totals[p.seat] ?? 0 }))))),
    h('div.game-foot', {},
      h('span.hint', {}, t('rounds_played', { n: game.rounds_played })),
      h('span.spacer'),
      finished
        ? h('a.primary.small', {
          href: replayPath, 'data-testid': `replay-${game.id}`,
          onclick: (e) => { e.preventDefault(); actions.navigate(replayPath); },
        }, '▶ ', t('watch_replay'))
        : ended ? null : h('span.hint', {}, t('replay_after'))));
}

function leaderboardTable(board, actions) {
  if (!board.items.length) return h('p.hint', { 'data-testid': 'no-leaders' }, t('no_leaders'));
  return h('div.sheet-wrap', {}, h('table.score-sheet.leaderboard', { 'data-testid': 'leaderboard' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, '#'),
      h('th', { scope: 'col', class: 'start' }, t('col_player')),
      h('th', { scope: 'col' }, t('col_games')),
      h('th', { scope: 'col' }, t('col_wins')),
      h('th', { scope: 'col' }, t('col_avg')))),
    h('tbody', {}, board.items.map((row, i) => h('tr', { class: board.offset + i === 0 ? 'leader' : '' },
      h('td', {}, num(board.offset + i + 1)),
      h('th', { scope: 'row', class: 'start' },
        board.offset + i === 0 ? h('span.crown', { 'aria-hidden': 'true' }, '♛ ') : null,
        playerLink(row.name, actions)),
      h('td', {}, num(row.games)),
      h('td', {}, decimal(row.wins, 2)),
      h('td', {}, decimal(row.average_total, 1)))))));
}

export function renderHistory(container, ctx, actions) {
  const code = ctx.route.code;
  const rerender = () => { if (ctx.route.view === 'history' && ctx.route.code === code) actions.rerender(); };
  if (view.route !== ctx.route) { // each visit (not a language switch) fetches the newest games
    Object.assign(view, { route: ctx.route, code, games: null, board: null, gamesOffset: 0, boardOffset: 0, error: null });
    load(code, rerender);
  }
  const roomPath = `/r/${code}`;
  const back = h('a.secondary.small', {
    href: roomPath, 'data-testid': 'back-to-table', onclick: (e) => { e.preventDefault(); actions.navigate(roomPath); },
  }, t('back_to_table'));
  const head = h('div.page-head', {},
    h('h1', {}, t('history_title'), ' ', h('span.room-code', { dir: 'ltr' }, code)),
    h('span.spacer'),
    back);
  if (view.error) {
    mount(container, h('div.history', { 'data-testid': 'history' }, head,
      h('section.panel', {}, h('p.error', { role: 'alert' }, view.error))));
    return;
  }
  if (!view.games) {
    mount(container, h('div.history', { 'data-testid': 'history' }, head, h('p.loading', { role: 'status' }, t('loading'))));
    return;
  }
  const games = view.games;
  const list = games.items.length
    ? h('ul.game-list', { 'data-testid': 'game-list' }, games.items.map((g) => gameRow(g, actions)))
    : h('p.hint', { 'data-testid': 'no-games' }, t('no_games'));
  mount(container, h('div.history', { 'data-testid': 'history', 'aria-busy': view.loading ? 'true' : null },
    head,
    h('div.history-grid', {},
      h('section.panel', { 'aria-labelledby': 'games-title' },
        h('h2', { id: 'games-title' }, t('games_title'), ' ', h('span.count-pill', {}, num(games.total))),
        list,
        pager(games, 'games', (offset) => { view.gamesOffset = offset; load(code, rerender); })),
      h('section.panel', { 'aria-labelledby': 'board-title' },
        h('h2', { id: 'board-title' }, t('leaderboard')),
        leaderboardTable(view.board, actions),
        pager(view.board, 'board', (offset) => { view.boardOffset = offset; load(code, rerender); })))));
}
