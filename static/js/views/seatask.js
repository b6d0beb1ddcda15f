// Asking for a bot's seat: the spectator's "Ask for this seat", the host's Approve / Decline, the waiting state.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { savedName, saveName } from '../storage.js';
import { displayName } from './widgets.js';

/** The controls a bot's seat shows (in a player chip or a lobby row): what this viewer may do about it. */
export function seatRequestControls(ctx, info, actions) {
  if (!info.bot) return null;
  const request = info.request;
  const mine = ctx.requestedSeat === info.seat && ctx.seat === null;
  if (request && ctx.isHost && !request.approved) {
    return h('span.seat-request', { 'data-testid': `request-${info.seat}`, role: 'group', 'aria-label': t('request_asks', { name: request.name }) },
      h('span.tag.gold', {}, t('request_asks', { name: request.name })),
      h('button.primary.small', {
        type: 'button', 'data-testid': `approve-${info.seat}`,
        onclick: () => actions.send({ type: 'approve_seat', seat: info.seat }),
      }, t('request_approve')),
      h('button.secondary.small', {
        type: 'button', 'data-testid': `decline-${info.seat}`,
        onclick: () => actions.send({ type: 'decline_seat', seat: info.seat }),
      }, t('request_decline')));
  }
  if (request) {
    const text = mine
      ? t(request.approved ? 'request_mine_approved' : 'request_mine_waiting')
      : t(request.approved ? 'request_approved' : 'request_waiting', { name: request.name });
    return h('span.seat-request', { 'data-testid': `request-${info.seat}` },
      h('span.tag', { role: 'status' }, text),
      mine && !request.approved
        ? h('button.secondary.small', {
          type: 'button', 'data-testid': `withdraw-${info.seat}`,
          onclick: () => actions.send({ type: 'withdraw_request' }),
        }, t('request_withdraw'))
        : null);
  }
  if (ctx.seat !== null || ctx.requestedSeat !== null || ctx.conn !== 'online') return null;
  return h('button.secondary.small', {
    type: 'button', 'data-testid': `ask-seat-${info.seat}`, 'aria-expanded': ctx.asking === info.seat ? 'true' : 'false',
    onclick: () => actions.askSeat(ctx.asking === info.seat ? null : info.seat),
  }, t('request_ask'));
}

/** The in-page form a spectator fills to ask for the bot's seat they picked (null when none is picked). */
export function askPanel(ctx, actions) {
  if (ctx.asking === null || ctx.seat !== null) return null;
  const info = ctx.room.seats.find((s) => s.seat === ctx.asking);
  if (!info || !info.bot || info.request) return null;
  const name = h('input', {
    id: 'ask-name', required: true, maxlength: 32, autocomplete: 'nickname', value: savedName(),
    'data-testid': 'ask-name', 'data-key': 'ask-name', placeholder: t('name_placeholder'),
  });
  const error = h('p.error', { role: 'alert' });
  return h('form.panel.ask-seat', {
    'data-testid': 'ask-form',
    'aria-labelledby': 'ask-title',
    onsubmit: (event) => {
      event.preventDefault();
      const value = name.value.trim();
      if (!value) { error.textContent = t('err_name'); return; }
      saveName(value);
      actions.requestSeat(info.seat, value);
    },
  },
  h('h2', { id: 'ask-title' }, t('request_title', { name: displayName(info) })),
  h('p.hint', {}, t('request_explain')),
  h('div.field', {}, h('label', { for: 'ask-name' }, t('your_name')), name),
  error,
  h('div.row', {},
    h('button.primary', { type: 'submit', 'data-testid': 'ask-send' }, t('request_send')),
    h('button.secondary', { type: 'button', onclick: () => actions.askSeat(null) }, t('cancel'))));
}
