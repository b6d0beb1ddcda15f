// Leaving the table and ending the game, each asked first in the page: a seated person leaves (a bot plays
// their seat from then on, under their name; they watch), and the host ends the game being played for
// everyone (recorded as ended, not won: nobody's standings change).
import { html, nothing } from '../html.js';
import { t } from '../i18n.js';
import { confirmDialog } from './confirm.js';
import '../i18n-table.js';

/** "Leave table", for a seated person; the host is told the role passes on. Not for the only person at the
 * table (the server refuses it: nobody could take over as host; closing the tab is leaving enough). */
export function leaveButton(ctx, actions) {
  if (ctx.seat === null || !ctx.room.seats.some((s) => !s.bot && s.seat !== ctx.seat)) return nothing;
  const ask = async () => {
    const sure = await confirmDialog({
      title: t('leave_title'),
      message: ctx.isHost ? `${t('leave_text')} ${t('leave_host_text')}` : t('leave_text'),
      confirm: t('leave_table'), danger: true, testid: 'confirm-leave',
    });
    if (sure) actions.leave();
  };
  return html`<button type="button" class="secondary small leave-table" data-testid="leave-table" data-key="leave-table"
    @click=${ask}>${t('leave_table')}</button>`;
}

/** "End game", for the host while a game is played. */
export function endGameButton(ctx, actions) {
  if (!ctx.isHost || ctx.room.status !== 'playing' || ctx.game?.phase === 'game_over') return nothing;
  const ask = async () => {
    const sure = await confirmDialog({
      title: t('end_game_title'), message: t('end_game_text'),
      confirm: t('end_game'), danger: true, testid: 'confirm-end',
    });
    if (sure) actions.send({ type: 'end_game' });
  };
  return html`<button type="button" class="secondary small end-game" data-testid="end-game" data-key="end-game"
    @click=${ask}>${t('end_game')}</button>`;
}

/** Under the table: the two, in one quiet row (nothing for a spectator). */
export function tableActions(ctx, actions) {
  const leave = leaveButton(ctx, actions);
  const end = endGameButton(ctx, actions);
  if (leave === nothing && end === nothing) return nothing;
  return html`<div class="row table-actions" data-testid="table-actions">${end}${leave}</div>`;
}
