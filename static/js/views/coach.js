// The coach for a newcomer's first hands (a choice of this browser, off after the first finished game): on the
// player's turn it asks the server's hint (which pile to draw from, then which card to throw, or to go out),
// marks that pile or card, says why in one line, and plays only when asked ("Do that for me": the normal move).
// The server answers where the table has hints on, or at any table for a seat played for practice.
import { cardShort } from '../cards.js';
import { html, nothing } from '../html.js';
import { live } from '../html-directives.js';
import { t } from '../i18n.js';
import { pausing } from '../pause.js';
import { coachOn, coachState, setCoachState } from '../storage.js';
import '../i18n-learn.js';
import '../i18n-table.js';

export { coachOn };

/** Switch the coach; once it has switched itself off after a first game, turning it on again keeps it on. */
export function setCoach(on) {
  const now = coachState();
  if (on) setCoachState(now === 'done' || now === 'kept' ? 'kept' : 'on');
  else setCoachState(now === 'kept' || now === 'done' ? 'done' : 'off');
}

/** The coach's switch (the walkthrough's last page, and the table). */
export function coachSwitch(id, label, onChange = () => {}) {
  const changed = (event) => { setCoach(event.currentTarget.checked); onChange(event.currentTarget.checked); };
  return html`<label class="toggle coach-switch" for=${id}><input class="switch" type="checkbox" role="switch" id=${id}
    data-testid=${id} data-key=${id} .checked=${live(coachOn())} @change=${changed}><span>${label}</span></label>`;
}

/** Whether this seat may ask the server for hints: the table has them on, or the seat plays for practice. */
export function coachAllowed(ctx) {
  const mine = ctx.room?.seats?.find((s) => s.seat === ctx.seat);
  return !!(ctx.game?.options?.hints || mine?.practice);
}

/** It is this seat's turn to draw or discard, and it can be played now. */
function myTurn(ctx) {
  const game = ctx.game;
  return !!game && ctx.seat !== null && game.turn === ctx.seat && (game.phase === 'draw' || game.phase === 'discard')
    && ctx.conn === 'online' && !pausing(ctx);
}

/**
 * After every change of the state (app.js gives it to state.js's store as what the state calls for): on this seat's
 * turn, ask for the hint once per version (the server searches once per version too). A finished game ends a
 * newcomer's coaching: the coach switches itself off, and says so.
 */
export function coachFollow(ctx, actions) {
  if (!ctx.game || ctx.seat === null) return;
  if (ctx.game.phase === 'game_over') {
    if (coachState() === 'on') {
      setCoachState('done');
      actions.toast(t('coach_done'));
    }
    return;
  }
  if (!coachOn() || !coachAllowed(ctx) || !myTurn(ctx) || ctx.pending) return;
  if (ctx.coach?.version === ctx.version) return; // asked already for this version
  ctx.coach = { version: ctx.version, phase: ctx.game.phase, answer: null };
  actions.send({ type: 'hint' });
}

// coachFollow, coachTake and coachRefused change the state's ``coach``: app.js calls them only inside
// change() (state.js: the one place where state changes).

/** A hint the coach is waiting for (of the phase it asked in): kept for the coach, and no toast. */
export function coachTake(ctx, msg) {
  const asked = ctx.coach;
  if (!asked || asked.answer || asked.version !== ctx.version) return false;
  if ((asked.phase === 'draw') !== !!msg.draw) return false;
  asked.answer = msg;
  return true;
}

const QUIET = new Set(['wrong_phase', 'not_your_turn', 'game_over', 'illegal_action', 'wrong_status', 'not_seated']);

/** A refusal of the coach's own question (the turn moved on meanwhile): dropped quietly, never toasted. */
export function coachRefused(ctx, msg) {
  const asked = ctx.coach;
  if (!asked || asked.answer || msg.id || !QUIET.has(msg.code)) return false;
  asked.answer = { refused: msg.code };
  return true;
}

/** The coach's advice for this turn: {text, move, pile | card}, or null while it waits. */
function advice(ctx) {
  const answer = ctx.coach?.version === ctx.version ? ctx.coach.answer : null;
  if (!answer || answer.refused) return null;
  const game = ctx.game;
  if (answer.draw === 'discard') {
    const card = cardShort(answer.card);
    return {
      text: answer.go_out ? t('coach_take_out', { card })
        : t('coach_take', { card, from: game.arrangement?.penalty ?? 0, to: answer.penalty }),
      move: { type: 'draw', source: 'discard' }, pile: 'discard',
    };
  }
  if (answer.draw === 'stock') {
    const text = answer.go_out ? t('coach_stock_out')
      : t('coach_stock', { card: game.discard_top ? cardShort(game.discard_top) : '' });
    return { text, move: { type: 'draw', source: 'stock' }, pile: 'stock' };
  }
  const card = cardShort(answer.card);
  return {
    text: answer.go_out ? t('coach_go_out', { card }) : t('coach_discard', { card, n: answer.penalty }),
    move: { type: answer.go_out ? 'go_out' : 'discard', card: answer.card }, card: answer.card,
  };
}

/**
 * The coach at the table (seated players, while the game is played): its switch, the one line of advice, and
 * "Do that for me". The switch calls ``actions.setCoach(on)`` (the table asks and draws again).
 */
export function coachBar(ctx, actions) {
  if (ctx.seat === null || !ctx.game || ctx.game.phase === 'game_over') return nothing;
  const on = coachOn();
  let line = null;
  let button = nothing;
  if (on && !coachAllowed(ctx)) line = t('coach_not_here');
  else if (on && !myTurn(ctx)) line = t('coach_wait');
  else if (on) {
    const found = advice(ctx);
    line = found ? found.text : t('coach_thinking');
    if (found && !ctx.pending) {
      button = html`<button type="button" class="primary small" data-testid="coach-do" data-key="coach-do"
        @click=${() => actions.play(found.move)}>${t('coach_do')}</button>`;
    }
  }
  return html`<section class=${on ? 'coach on' : 'coach off'} data-testid="coach" aria-label=${t('coach')}><label
    class="toggle coach-switch" for="coach-toggle"><input class="switch" type="checkbox" role="switch" id="coach-toggle"
    data-testid="coach-toggle" data-key="coach-toggle" .checked=${live(on)}
    @change=${(event) => actions.setCoach(event.currentTarget.checked)}><span>${t('coach_switch')}</span></label>${line
    ? html`<p class="coach-line" data-testid="coach-line" role="status">${line}</p>` : nothing}${button}</section>`;
}

/** What the coach points at now ({pile} or {card}; the table marks it), or null. */
export function coachTarget(ctx) {
  if (!coachOn() || !myTurn(ctx)) return null;
  const found = advice(ctx);
  return found ? { pile: found.pile ?? null, card: found.card ?? null } : null;
}
