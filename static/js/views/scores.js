// Round-end reveal, the score sheet (rounds x players, totals, leader) and the game's end with a rematch.
import { h, mount } from '../dom.js';
import { t } from '../i18n.js';
import { pauseLeft, pausing } from '../pause.js';
import { avatarEl } from '../avatars.js';
import { playerLink, standingsLink } from './standings-links.js';
import { historyLink, meldGroups, nameLabel, scoreSheet, sheetBox, seatName as nameAmong, winnersLine } from './widgets.js';

const seatName = (ctx, seat) => nameAmong(ctx.room.seats, seat);

/**
 * The live game's score sheet; a person's name opens their standings (in a new tab while the game is played,
 * so the table stays open; in this one once it is over). Bots and programs have none.
 */
export function liveScoreSheet(ctx, actions) {
  const game = ctx.game;
  const players = game.players.map((p) => ctx.room.seats.find((s) => s.seat === p.seat) ?? { seat: p.seat, name: `#${p.seat + 1}` });
  const newTab = game.phase !== 'game_over';
  const nameLink = (p) => (p.bot || p.program || !p.name ? null
    : playerLink(p.name, actions, { newTab, testid: `standings-of-${p.seat}` }));
  return scoreSheet({ players, scores: game.scores, totals: game.totals, rounds: game.results, nameLink, face: avatarEl });
}

function roundReveal(ctx, result, heading) {
  return h('div.reveal', { 'data-testid': 'reveal' },
    heading ? h('h3', {}, t('round_over', { n: result.round })) : null,
    h('p.went-out-line', {}, result.went_out === null ? t('turn_limit_reached') : t('went_out_by', { name: seatName(ctx, result.went_out) })),
    h('ul.reveal-hands', {}, result.hands.map((hand) => h('li.reveal-hand', { class: hand.seat === result.went_out ? 'out' : '' },
      h('div.reveal-head', {},
        h('span.name', { dir: 'auto' }, seatName(ctx, hand.seat)),
        h('span.spacer'),
        h('span.penalty', {}, t('points', { n: hand.penalty }))),
      h('div.reveal-melds', {}, meldGroups(
        [...hand.melds.map((m) => ({ kind: m.kind, cards: m.cards })), ...(hand.deadwood.length ? [{ kind: 'deadwood', cards: hand.deadwood }] : [])],
        { wildRank: result.wild_rank, small: true, labels: false, mark: (_card, group) => (group.kind === 'deadwood' ? 'dead' : 'meld') }))))));
}

/** The people the pause waits for (here now, or ready already), each marked ready or not. */
function readyList(ctx) {
  const ready = new Set(ctx.room.continued ?? []);
  const people = ctx.room.seats.filter((s) => !s.bot && !s.program && (s.connected || ready.has(s.seat)));
  return h('ul.ready-list', { 'aria-label': t('break_players'), 'data-testid': 'ready-list' }, people.map((s) => {
    const isReady = ready.has(s.seat);
    return h('li', { class: isReady ? 'ready' : 'waiting', 'data-testid': `ready-${s.seat}`, 'data-ready': isReady ? '1' : '0' },
      h('span.mark', { 'aria-hidden': 'true' }, isReady ? '✓' : '○'),
      nameLabel(s),
      h('span.state', {}, isReady ? t('break_ready') : t('break_waiting')));
  }));
}

/** The countdown to the next round, under the dialog's title (``pauseTick`` in app.js counts it down). */
function pauseCountdown(ctx) {
  return h('p.pause-countdown', { role: 'timer', 'data-testid': 'pause-left', 'data-pause-left': '' },
    t('break_next_in', { n: pauseLeft(ctx.pause) }));
}

/** Who has read the results, and what pressing Continue did; kept in view under the long reveal. */
function pauseFoot(ctx, buttons) {
  return h('div.pause-foot', { 'data-testid': 'pause' },
    readyList(ctx),
    ctx.pause.sent ? h('p.hint.pause-note', { role: 'status' }, t('break_you_ready')) : null,
    buttons);
}

/**
 * Give the keyboard back to ``el`` (what had it before a dialog opened) if it is still on the page, or to
 * the element drawn again in its place (same ``data-key``); false when neither is there.
 */
function giveFocusBack(el) {
  if (!el || el === document.body) return false;
  const target = el.isConnected ? el
    : el.dataset?.key ? document.querySelector(`#main [data-key="${CSS.escape(el.dataset.key)}"]`) : null;
  target?.focus({ preventScroll: true });
  return !!target && document.activeElement === target;
}

/**
 * The dialog: a native modal <dialog> (the page behind it is inert, so Tab stays inside; Escape closes it
 * through ``actions.closeOverlay``); on close the keyboard goes back where it was. Returns the dialog.
 */
function showDialog(container, children, focusFirst, actions) {
  let dialog = container.querySelector('dialog');
  const fresh = !dialog;
  if (fresh) {
    dialog = h('dialog.dialog', { 'aria-labelledby': 'dialog-title' });
    dialog.returnTo = document.activeElement;
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault(); // the page's state says when it closes
      if (dialog.isConnected) actions.closeOverlay();
    });
    // The page behind is inert, but Tab past the last control would leave for the browser's own bar: wrap.
    dialog.addEventListener('keydown', (event) => {
      if (event.key !== 'Tab') return;
      const stops = [...dialog.querySelectorAll('button, a[href], input, select, textarea, [tabindex]:not([tabindex="-1"])')]
        .filter((el) => !el.disabled && el.getClientRects().length);
      if (!stops.length) return;
      const edge = event.shiftKey ? stops[0] : stops[stops.length - 1];
      if (document.activeElement === edge || !dialog.contains(document.activeElement)) {
        event.preventDefault();
        (event.shiftKey ? stops[stops.length - 1] : stops[0]).focus();
      }
    });
    dialog.addEventListener('click', (event) => {
      if (event.target !== dialog) return;
      const box = dialog.getBoundingClientRect();
      const inside = event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom;
      if (!inside) actions.closeOverlay(); // a click on the backdrop
    });
    mount(container, dialog);
  }
  const focusedKey = dialog.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
  mount(dialog, children);
  if (fresh) {
    dialog.showModal();
    focusFirst.focus({ preventScroll: true });
  } else if (!dialog.contains(document.activeElement)) { // what had the keyboard was drawn again
    (focusedKey && dialog.querySelector(`[data-testid="${CSS.escape(focusedKey)}"]`) || focusFirst).focus({ preventScroll: true });
  }
  return dialog;
}

export function renderOverlay(container, ctx, actions) {
  const overlay = ctx.overlay;
  const game = ctx.game;
  if (!overlay || !game) {
    delete container.dataset.shown;
    const dialog = container.querySelector('dialog');
    mount(container);
    return dialog ? giveFocusBack(dialog.returnTo) : false;
  }
  // Moves keep coming while the dialog is open: redraw it only when what it shows has changed.
  const paused = pausing(ctx) && overlay.kind === 'round' && !!ctx.room.break_until;
  const shown = JSON.stringify([overlay, game.results.length, ctx.room.status, ctx.isHost, document.documentElement.lang,
    paused && [ctx.pause.key, ctx.pause.sent, ctx.room.continued, ctx.room.seats.map((s) => s.connected)]]);
  if (container.dataset.shown === shown) return false;
  container.dataset.shown = shown;
  const over = game.phase === 'game_over';
  // A view carries the revealed hands of the last finished round only (older ones: the history API).
  const last = game.last_result;
  const result = overlay.kind === 'round' && last && last.round === overlay.index + 1 ? last : null;
  const title = over ? t('game_over')
    : result ? t('round_over', { n: result.round }) : t('score_sheet');
  // During the pause Continue says "I have read them" and the results stay up until the next round starts.
  const waiting = paused && ctx.pause.sent;
  const close = h(waiting ? 'button.secondary' : 'button.primary', {
    type: 'button', 'data-testid': 'continue',
    onclick: () => (paused && !waiting && ctx.seat !== null ? actions.continueRound() : actions.closeOverlay()),
  }, over || !result || waiting ? t('close') : t('continue'));
  const rematch = over && ctx.room.status === 'finished'
    ? ctx.isHost
      ? h('button.primary.big', { type: 'button', 'data-testid': 'rematch', onclick: () => actions.send({ type: 'rematch' }) }, t('rematch'))
      : h('p.notice', {}, t('waiting_rematch'))
    : null;
  const buttons = h('div.row.end', {}, over ? historyLink(ctx.room.code, actions, 'a.secondary') : null,
    over ? standingsLink(actions, 'a.secondary') : null, rematch, close);
  const scrolled = container.querySelector('dialog')?.scrollTop ?? 0;
  const dialog = showDialog(container, [
    h('h2', { id: 'dialog-title' }, title),
    paused ? pauseCountdown(ctx) : null,
    over ? h('p.winner', { 'data-testid': 'winner' }, h('span.crown', { 'aria-hidden': 'true' }, '♛ '), winnersLine((game.winners ?? []).map((s) => seatName(ctx, s)))) : null,
    // At the end the totals come first; after a round, the hands that made its scores.
    over ? sheetBox(liveScoreSheet(ctx, actions)) : null,
    result ? roundReveal(ctx, result, over) : null,
    over ? null : sheetBox(liveScoreSheet(ctx, actions)),
    paused ? pauseFoot(ctx, buttons) : buttons,
  ], rematch?.tagName === 'BUTTON' ? rematch : close, actions);
  dialog.scrollTop = scrolled; // drawn again as people press Continue: keep the reader's place
  return false;
}
