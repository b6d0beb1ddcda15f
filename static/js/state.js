// The client's one state object: what a fresh page (or a new route) starts from, and the one place where it
// changes (issue 24; in one file with its shape: a room link's first screen waits for each file). The rule:
// every change of the state goes through ``change(fn)`` (``fn`` is given the state and changes it), and one
// render follows in a microtask, however many changes came before it. Views are functions of the state: they
// read it and call the actions app.js gives them; they never assign to it and keep no state of their own that
// the next render needs (what a view must remember, such as a folded box or your own order of the hand, is a
// field of the state below).
// Rendering is by lit-html (js/vendor/lit-html; render.js draws every page): an update touches only what
// changed, lists are kept by key, so the element that has the keyboard, a half-typed text and a scroll position
// survive it by construction.

let state = null;
let draw = () => {};
let settle = () => {};
let scheduled = null;

/** Hold ``initial`` as the state; ``render()`` draws it, after ``follow(state)`` (the changes the state itself
 * calls for, such as the coach's question on your turn) has run. Returns the state (read-only for views). */
export function createStore(initial, { render, follow = () => {} }) {
  state = initial;
  draw = render;
  settle = follow;
  return state;
}

/** Change the state (``fn(state)``, or nothing: a render for what lives outside it, such as a setting).
 * Returns a promise of the render that shows it (for the rare action that then moves the keyboard). */
export function change(fn) {
  if (fn) fn(state);
  scheduled ??= Promise.resolve().then(() => {
    scheduled = null;
    settle(state);
    draw();
  });
  return scheduled;
}


/** A new state for ``route``; every view reads it, and only app.js's actions change it (change() above). */
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
    chat: [], // the chat's last lines: {seat, name, text, at, id}
    chatLines: 0, // lines taken in so far (each line's id)
    chatSeen: 0, // lines read (the count of unread ones shows on the folded chat)
    chatOpen: null, // the chat as the viewer left it (null: open on a wide screen)
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
    formerSeat: null, // the seat that was ours, a bot's now (we left): ours to take back without asking
    asking: null, // the bot's seat whose ask form is open
    askError: null, // what the ask form says is wrong (no name)
    coach: null, // the coach's question this turn: {version, phase, answer} (views/coach.js)
    hint: null, // the server's hint for this hand: {card, goOut}
    selected: null, // the card picked to be confirmed ("confirm discards")
    handOrder: [], // your own order of the hand (cards as text; duplicates allowed); kept for the tab's life
    hostBoxOpen: false, // the host's box at the table is open
    botLevel: null, // the bot level the host last picked in the lobby (null: the server's default)
    rulesOpen: null, // the lobby's rules box as the viewer left it (null: open for the host)
    error: null,
    page: {}, // the page's own part (views/home.js, join.js, history.js, standings.js): a form's choices and
    // errors, what the page fetched; a new page starts it afresh
  };
}
