// Asking for a bot's seat: the spectator's "Ask for this seat", the host's Approve / Decline, the waiting state.
import { html, nothing } from '../html.js';
import { t } from '../i18n.js';
import { savedName, saveName } from '../storage.js';
import { displayName } from './widgets.js';
import '../i18n-table.js';

/** The controls a bot's seat shows (in a player chip or a lobby row): what this viewer may do about it. */
export function seatRequestControls(ctx, info, actions) {
  if (!info.bot) return nothing;
  const request = info.request;
  const mine = ctx.requestedSeat === info.seat && ctx.seat === null;
  if (request && ctx.isHost && !request.approved) {
    const asks = t('request_asks', { name: request.name });
    return html`<span class="seat-request" data-testid=${`request-${info.seat}`} role="group" aria-label=${asks}><span
      class="tag gold">${asks}</span><button type="button" class="primary small" data-testid=${`approve-${info.seat}`}
      @click=${() => actions.send({ type: 'approve_seat', seat: info.seat })}>${t('request_approve')}</button><button type="button"
      class="secondary small" data-testid=${`decline-${info.seat}`}
      @click=${() => actions.send({ type: 'decline_seat', seat: info.seat })}>${t('request_decline')}</button></span>`;
  }
  if (request) {
    const text = mine
      ? t(request.approved ? 'request_mine_approved' : 'request_mine_waiting')
      : t(request.approved ? 'request_approved' : 'request_waiting', { name: request.name });
    return html`<span class="seat-request" data-testid=${`request-${info.seat}`}><span class="tag" role="status">${text}</span>${
      mine && !request.approved
        ? html`<button type="button" class="secondary small" data-testid=${`withdraw-${info.seat}`}
          @click=${() => actions.send({ type: 'withdraw_request' })}>${t('request_withdraw')}</button>` : nothing}</span>`;
  }
  if (ctx.seat !== null || ctx.requestedSeat !== null || ctx.conn !== 'online') return nothing;
  if (info.seat === ctx.formerSeat) { // our own seat, which we left: back without a name or the host's answer
    return html`<button type="button" class="primary small" data-testid=${`take-back-${info.seat}`}
      aria-label=${t('take_back_named', { name: displayName(info) })}
      @click=${() => actions.send({ type: 'request_seat', seat: info.seat })}>${t('take_back')}</button>`;
  }
  return html`<button type="button" class="secondary small" data-testid=${`ask-seat-${info.seat}`}
    aria-expanded=${ctx.asking === info.seat ? 'true' : 'false'}
    @click=${() => actions.askSeat(ctx.asking === info.seat ? null : info.seat)}>${t('request_ask')}</button>`;
}

/** The in-page form a spectator fills to ask for the bot's seat they picked (nothing when none is picked).
 * Its error is the state's (``ctx.askError``); the name typed stays in its field across every render. */
export function askPanel(ctx, actions) {
  if (ctx.asking === null || ctx.seat !== null) return nothing;
  const info = ctx.room.seats.find((s) => s.seat === ctx.asking);
  if (!info || !info.bot || info.request) return nothing;
  const submit = (event) => {
    event.preventDefault();
    const value = event.currentTarget.querySelector('[data-testid=ask-name]').value.trim();
    if (!value) { actions.setAskError(t('err_name')); return; }
    saveName(value);
    actions.requestSeat(info.seat, value);
  };
  return html`<form class="panel ask-seat" data-testid="ask-form" aria-labelledby="ask-title" @submit=${submit}><h2
    id="ask-title">${t('request_title', { name: displayName(info) })}</h2><p class="hint">${t('request_explain')}</p><div
    class="field"><label for="ask-name">${t('your_name')}</label><input id="ask-name" required maxlength="32" autocomplete="nickname"
    .value=${savedName()} data-testid="ask-name" data-key="ask-name" placeholder=${t('name_placeholder')}></div><p class="error"
    role="alert">${ctx.askError ?? ''}</p><div class="row"><button type="submit" class="primary" data-testid="ask-send">${
    t('request_send')}</button><button type="button" class="secondary" @click=${() => actions.askSeat(null)}>${
    t('cancel')}</button></div></form>`;
}
