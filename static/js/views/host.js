// What the host does to other seats and after a game: hand a person's seat to a bot, hand the host role
// over (each asked first, in the page), the box at the table that gathers those, and what the table shows
// once the game is over (Play again, or waiting for the host; the final scores; the history).
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { config } from '../config.js';
import { confirmDialog } from './confirm.js';
import { botIcon, displayName, historyLink, seatName, winnersLine } from './widgets.js';

/** Make ``seat`` ({seat, name, bot}) the host, once the host says yes. */
export function makeHostButton(seat, actions, tag = 'button.secondary.small') {
  const name = displayName(seat);
  return h(tag, {
    type: 'button', 'data-testid': `make-host-${seat.seat}`, 'data-key': `make-host-${seat.seat}`,
    'aria-label': t('make_host_named', { name }),
    onclick: async () => {
      const sure = await confirmDialog({
        title: t('make_host_title', { name }), message: t('make_host_text', { name }),
        confirm: t('make_host'), testid: 'confirm-host',
      });
      if (sure) actions.send({ type: 'make_host', seat: seat.seat });
    },
  }, t('make_host'));
}

/** Let a bot play a person's seat, once the host says yes: a button with words, not only a robot. */
export function handToBotButton(seat, actions) {
  const name = displayName(seat);
  return h('button.secondary.small.bot-seat', {
    type: 'button', 'data-testid': `bot-seat-${seat.seat}`, 'data-key': `bot-seat-${seat.seat}`,
    'aria-label': t('hand_to_bot_named', { name }),
    onclick: async () => {
      const sure = await confirmDialog({
        title: t('hand_to_bot_title', { name }), message: t('hand_to_bot_text', { name }),
        confirm: t('hand_to_bot'), danger: true, testid: 'confirm-bot',
      });
      if (sure) actions.send({ type: 'bot_seat', seat: seat.seat, level: config.default_bot_level });
    },
  }, botIcon(), h('span', {}, t('hand_to_bot')));
}

/** At the table, for the host: every other person's seat with its two controls (folded away). */
export function hostBox(ctx, actions) {
  if (!ctx.isHost) return null;
  const others = ctx.room.seats.filter((s) => s.seat !== ctx.room.host_seat && !s.bot);
  if (!others.length) return null;
  return h('details.host-box', {
    'data-testid': 'host-controls', open: ctx.hostBoxOpen,
    ontoggle: (event) => { if (event.currentTarget.open !== ctx.hostBoxOpen) actions.setHostBoxOpen(event.currentTarget.open); },
  },
  h('summary', {}, t('host_controls')),
  h('p.hint', {}, t('host_controls_hint')),
  h('ul.host-seats', {}, others.map((s) => h('li.host-seat', { 'data-testid': `host-seat-${s.seat}` },
    h('span.name', { dir: 'auto' }, displayName(s)),
    h('span.spacer'),
    handToBotButton(s, actions),
    makeHostButton(s, actions)))));
}

/** Where the hand was, once the game is over: Play again (host) or waiting, the final scores, history. */
export function gameOverPanel(ctx, actions) {
  const game = ctx.game;
  const winners = winnersLine((game.winners ?? []).map((s) => seatName(ctx.room.seats, s)));
  const next = ctx.room.status !== 'finished' ? null
    : ctx.isHost
      ? h('div.row', {},
        h('button.primary.big', {
          type: 'button', 'data-testid': 'play-again', 'data-key': 'play-again',
          onclick: () => actions.send({ type: 'rematch' }),
        }, t('rematch')),
        h('button.secondary', {
          type: 'button', 'data-testid': 'reopen', 'data-key': 'reopen',
          onclick: () => actions.send({ type: 'reopen' }),
        }, t('reopen')))
      : h('p.notice', { 'data-testid': 'waiting-rematch', role: 'status' },
        t('waiting_rematch_named', { name: seatName(ctx.room.seats, ctx.room.host_seat) }));
  return h('section.game-over-panel', { 'data-testid': 'game-over-panel', 'aria-labelledby': 'game-over-title' },
    h('h2', { id: 'game-over-title' }, t('game_over')),
    h('p.winner-line', {}, h('span.crown', { 'aria-hidden': 'true' }, '♛ '), winners),
    next,
    h('div.row', {},
      h('button.secondary', {
        type: 'button', 'data-testid': 'final-scores', 'data-key': 'final-scores', onclick: () => actions.showScores(),
      }, t('final_scores')),
      tableHistoryLink(ctx, actions)));
}

/** The history link under the finished game (its own test id: the game-over dialog has one too). */
function tableHistoryLink(ctx, actions) {
  const link = historyLink(ctx.room.code, actions, 'a.secondary.history-link');
  link.dataset.testid = 'table-history';
  return link;
}
