// The client's one state object: what a fresh page (or a new route) starts from.

/** A new state for ``route``; every view reads it, and only app.js changes it. */
export function initialState(route) {
  return {
    route,
    conn: null, // 'connecting' | 'online' | 'reconnecting'
    socket: null,
    seat: null,
    isHost: false,
    room: null,
    game: null,
    version: null,
    chat: [],
    feed: [], // the last moves, from the state's events
    roundFeed: [], // every move of this round seen since the page opened (or given with the welcome)
    feedKey: null, // 'game:round' the moves are of ('welcome': those the welcome gave, of the next state's)
    feedOpen: false, // the whole round's moves are shown
    pending: null, // {id, message} of the action awaiting its ack
    goOut: false,
    overlay: null, // null | {kind: 'round', index} | {kind: 'scores'}
    seenResults: null,
    pause: null, // the pause between rounds (pause.js): {key, round, until, sent, over}
    joinInfo: null, // room info while choosing to join or watch
    requestedSeat: null, // the bot's seat this tab asked for (its request is in room.seats[...].request)
    asking: null, // the bot's seat whose ask form is open
    coach: null, // the coach's question this turn: {version, phase, answer} (views/coach.js)
    error: null,
  };
}
