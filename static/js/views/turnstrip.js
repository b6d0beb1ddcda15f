// "Who plays next": a thin strip on the table with the previous, current and next player, the current one
// highlighted. Turns go up the seats ((seat + 1) % players, docs/protocol.md); during the final turns the
// round ends after the last one, so "next" then says so instead of naming the player who went out.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { seatName } from './widgets.js';
import { avatarEl } from '../avatars.js';

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
  return h('li.turn-step', {
    'data-testid': `strip-${role}`, 'data-seat': seat === null ? null : String(seat),
    class: [role, mine ? 'you' : ''].join(' '), 'aria-current': role === 'now' ? 'step' : null,
  },
  h('span.turn-role', {}, t(`strip_${role}`)),
  h('span.turn-who', {},
    seat === null ? null : avatarEl(ctx.room.seats.find((s) => s.seat === seat) ?? { seat }),
    h('span.turn-name', { dir: 'auto' }, seat === null ? t('strip_round_end') : seatName(ctx.room.seats, seat))));
}

/** The strip for the table in ``ctx`` (null when no turn is on: game over, or no players). */
export function turnStrip(ctx) {
  const game = ctx.game;
  if (game.phase === 'game_over' || game.turn === null || game.turn === undefined || !game.players?.length) return null;
  const order = turnOrder(game);
  return h('ol.turn-strip', { 'data-testid': 'turn-strip', 'aria-label': t('strip_label') },
    step(ctx, 'prev', order.previous), step(ctx, 'now', order.turn), step(ctx, 'next', order.next));
}
