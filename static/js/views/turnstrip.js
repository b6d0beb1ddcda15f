// "Who plays next": a thin strip on the table with the previous, current and next player, the current one
// highlighted. Turns go up the seats ((seat + 1) % players, docs/protocol.md); during the final turns the
// round ends after the last one, so "next" then says so instead of naming the player who went out.
import { html, nothing } from '../html.js';
import { t } from '../i18n.js';
import { seatName } from './widgets.js';
import { avatarTemplate } from '../avatars.js';
import '../i18n-table.js';

/** The seats before and after ``game.turn`` (``next`` is null when the round ends after this turn). */
export function turnOrder(game) {
  const n = game.players.length;
  const turn = game.turn;
  const previous = (turn - 1 + n) % n;
  const following = (turn + 1) % n;
  const lastTurn = game.went_out !== null && game.went_out !== undefined && game.final_turns <= 1;
  return { previous, turn, next: lastTurn || following === game.went_out ? null : following };
}

function step(ctx, role, seat) {
  const mine = seat !== null && seat === ctx.seat;
  const info = seat === null ? null : ctx.room.seats.find((s) => s.seat === seat) ?? { seat };
  return html`<li class=${mine ? `turn-step ${role} you` : `turn-step ${role}`} data-testid=${`strip-${role}`}
    data-seat=${seat === null ? nothing : String(seat)} aria-current=${role === 'now' ? 'step' : nothing}><span
    class="turn-role">${t(`strip_${role}`)}</span><span class="turn-who">${info ? avatarTemplate(info) : nothing}<span
    class="turn-name" dir="auto">${seat === null ? t('strip_round_end') : seatName(ctx.room.seats, seat)}</span></span></li>`;
}

/** The strip for the table in ``ctx`` (nothing when no turn is on: game over, or no players). */
export function turnStrip(ctx) {
  const game = ctx.game;
  if (game.phase === 'game_over' || game.turn === null || game.turn === undefined || !game.players?.length) return nothing;
  const order = turnOrder(game);
  return html`<ol class="turn-strip" data-testid="turn-strip" aria-label=${t('strip_label')}>${step(ctx, 'prev', order.previous)}${
    step(ctx, 'now', order.turn)}${step(ctx, 'next', order.next)}</ol>`;
}
