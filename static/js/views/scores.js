// Round-end reveal, the score sheet (rounds x players, totals, leader) and the game's end with a rematch.
import { cardEl } from '../cards.js';
import { h, mount } from '../dom.js';
import { num, t } from '../i18n.js';
import { historyLink } from './lobby.js';
import { seatName } from './table.js';

function leaders(totals) {
  if (!totals.length) return new Set();
  const low = Math.min(...totals);
  return new Set(totals.map((v, i) => (v === low ? i : -1)).filter((i) => i >= 0));
}

export function scoreSheet(ctx) {
  const game = ctx.game;
  const seats = game.players.map((p) => p.seat);
  const lead = game.scores.length ? leaders(game.totals) : new Set();
  const winners = new Set(game.winners ?? []);
  return h('table.score-sheet', { 'data-testid': 'score-sheet' },
    h('caption', {}, t('score_sheet')),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, t('round_col')),
      seats.map((s) => h('th', { scope: 'col', class: lead.has(s) ? 'leader' : '' },
        lead.has(s) ? h('span.crown', { 'aria-label': t('leader') }, '♛ ') : null,
        h('span', { dir: 'auto' }, seatName(ctx, s)))))),
    h('tbody', {}, game.scores.map((row, r) => h('tr', {},
      h('th', { scope: 'row' }, num(r + 1), h('span.wild-mini', {}, ` (${game.results[r]?.wild_rank ?? ''})`)),
      row.map((v, s) => h('td', { class: game.results[r]?.went_out === s ? 'went-out' : v === 0 ? 'zero' : '' }, num(v)))))),
    h('tfoot', {}, h('tr', {},
      h('th', { scope: 'row' }, t('total')),
      game.totals.map((v, s) => h('td', { class: lead.has(s) || winners.has(s) ? 'leader' : '' }, num(v))))));
}

function miniHand(cards, wildRank, extraClass) {
  return h('div.mini-cards', {}, cards.map((c) => cardEl(c, { small: true, wildRank, extraClass })));
}

function roundReveal(ctx, result, heading) {
  return h('div.reveal', { 'data-testid': 'reveal' },
    heading ? h('h3', {}, t('round_over', { n: result.round })) : null,
    h('p.went-out-line', {}, t('went_out_by', { name: seatName(ctx, result.went_out) })),
    h('ul.reveal-hands', {}, result.hands.map((hand) => h('li.reveal-hand', { class: hand.seat === result.went_out ? 'out' : '' },
      h('div.reveal-head', {},
        h('span.name', { dir: 'auto' }, seatName(ctx, hand.seat)),
        h('span.spacer'),
        h('span.penalty', {}, t('points', { n: hand.penalty }))),
      h('div.reveal-melds', {},
        hand.melds.map((m) => miniHand(m.cards, result.wild_rank, 'meld')),
        hand.deadwood.length ? miniHand(hand.deadwood, result.wild_rank, 'dead') : null)))));
}

export function winnersLine(ctx) {
  const names = (ctx.game.winners ?? []).map((s) => seatName(ctx, s));
  const text = names.join(t('and'));
  return names.length > 1 ? t('wins_many', { names: text }) : t('wins', { names: text });
}

export function renderOverlay(container, ctx, actions) {
  const overlay = ctx.overlay;
  const game = ctx.game;
  if (!overlay || !game) {
    delete container.dataset.shown;
    mount(container);
    return;
  }
  // Moves keep coming while the dialog is open: redraw it only when what it shows has changed.
  const shown = JSON.stringify([overlay, game.results.length, ctx.room.status, ctx.isHost, document.documentElement.lang]);
  if (container.dataset.shown === shown) return;
  container.dataset.shown = shown;
  const over = game.phase === 'game_over';
  // A view carries the revealed hands of the last finished round only (older ones: the history API).
  const last = game.last_result;
  const result = overlay.kind === 'round' && last && last.round === overlay.index + 1 ? last : null;
  const title = over ? t('game_over')
    : result ? t('round_over', { n: result.round }) : t('score_sheet');
  const close = h('button.primary', { type: 'button', 'data-testid': 'continue', onclick: () => actions.closeOverlay() },
    over || !result ? t('close') : t('continue'));
  const rematch = over && ctx.room.status === 'finished'
    ? ctx.isHost
      ? h('button.primary.big', { type: 'button', 'data-testid': 'rematch', onclick: () => actions.send({ type: 'rematch' }) }, t('rematch'))
      : h('p.notice', {}, t('waiting_rematch'))
    : null;
  const dialog = h('div.dialog', { role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'dialog-title' },
    h('h2', { id: 'dialog-title' }, title),
    over ? h('p.winner', { 'data-testid': 'winner' }, h('span.crown', { 'aria-hidden': 'true' }, '♛ '), winnersLine(ctx)) : null,
    // At the end the totals come first; after a round, the hands that made its scores.
    over ? h('div.sheet-wrap', {}, scoreSheet(ctx)) : null,
    result ? roundReveal(ctx, result, over) : null,
    over ? null : h('div.sheet-wrap', {}, scoreSheet(ctx)),
    h('div.row.end', {}, over ? historyLink(ctx.room.code, actions, 'a.secondary') : null, rematch, close));
  const backdrop = h('div.backdrop', {
    onclick: (e) => { if (e.target === backdrop) actions.closeOverlay(); },
  }, dialog);
  const hadDialog = container.querySelector('.dialog');
  mount(container, backdrop);
  if (!hadDialog) (rematch?.tagName === 'BUTTON' ? rematch : close).focus({ preventScroll: true });
}
