// The pause between rounds as this page sees it: the room's break_until counted down on this device's clock
// (corrected by the server's time), whether this player pressed Continue, and whether the pause is over.

/**
 * The pause after reading ``room`` (null when none is on and none was): a new one for a new round, the
 * same one (with a fresh deadline) while it lasts, or the previous one marked over when the server ended it.
 */
export function notePause(previous, room, game) {
  if (!room?.break_until || !room.server_time || !game) {
    return previous && !previous.over ? { ...previous, over: true, endedByServer: true } : previous;
  }
  const key = `${room.game_id}:${game.round}`;
  const until = Date.now() + Date.parse(room.break_until) - Date.parse(room.server_time);
  if (!previous || previous.key !== key) return { key, round: game.round, until, sent: false, over: false };
  return previous.over ? previous : { ...previous, until };
}

/** Whole seconds left of a pause that is on. */
export function pauseLeft(pause) {
  return Math.max(0, Math.ceil((pause.until - Date.now()) / 1000));
}

/** A pause is on for this page: the table waits (no moves from here; the results stay up). */
export function pausing(ctx) {
  return !!ctx.pause && !ctx.pause.over;
}
