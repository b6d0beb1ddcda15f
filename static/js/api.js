// REST calls to the server: create, join and look up a room; score history and replays.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

// A read that has not answered in this long, or that failed on the way (a connection the server closed as
// the request went out), is asked again, once, on a fresh request: a page must never wait forever on one
// stuck request (a connection dropped without a word, a preload that never came).
const READ_PATIENCE_MS = 8000;

async function send(method, path, body, options = {}) {
  return fetch(path, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
    ...options,
  });
}

async function read(path, options) {
  const patience = new AbortController();
  const timer = setTimeout(() => patience.abort(), READ_PATIENCE_MS);
  try {
    return await send('GET', path, null, { ...options, signal: patience.signal });
  } catch {
    return send('GET', path, null, { cache: 'no-store' }); // GETs are safe to repeat
  } finally {
    clearTimeout(timer);
  }
}

async function request(method, path, body, readOptions = {}) {
  let response;
  try {
    response = await (method === 'GET' ? read(path, readOptions) : send(method, path, body));
  } catch {
    throw new ApiError(0, navigator.onLine === false ? 'offline' : 'network', '');
  }
  let data = null;
  try {
    data = await response.json();
  } catch { /* empty or not JSON */ }
  if (!response.ok) {
    // Every refusal of the server is {code, message} (app/api/errors.py); anything else (a proxy's page) has
    // only its status.
    const code = (typeof data?.code === 'string' && data.code) || (response.status === 404 ? 'not_found' : 'http');
    const message = typeof data?.message === 'string' ? data.message : '';
    throw new ApiError(response.status, code, message);
  }
  return data;
}

export const createRoom = (body) => request('POST', '/api/rooms', body);
// With ``seat``: ask for that bot's seat (a request: the host approves it, and the seat passes at the next
// moment the rules allow; the answer's token finds the request).
export const joinRoom = (code, name, seat = null) => request('POST', `/api/rooms/${encodeURIComponent(code)}/join`, seat === null ? { name } : { name, seat });
// The tables this browser holds a seat at ([{code, token, chat_read}]): the tokens go in the body, never a URL.
export const myTables = (tables) => request('POST', '/api/my-tables', { tables });
export const getRoom = (code) => request('GET', `/api/rooms/${encodeURIComponent(code)}`);
// The room as it is now, never an answer asked for earlier (a page's preload, the worker's early read): a look
// at the table long after the page loaded.
export const getRoomNow = (code) => request('GET', `/api/rooms/${encodeURIComponent(code)}`, null, { cache: 'no-store' });

// Score history (REST): a table's games and leaderboard, a page at a time; a finished game's replay frames.
const page = (limit, offset) => `limit=${Number(limit)}&offset=${Number(offset)}`;
export const roomGames = (code, limit, offset) => request('GET', `/api/rooms/${encodeURIComponent(code)}/games?${page(limit, offset)}`);
export const leaderboard = (code, limit, offset) => request('GET', `/api/rooms/${encodeURIComponent(code)}/leaderboard?${page(limit, offset)}`);
export const gameReplay = (id) => request('GET', `/api/games/${encodeURIComponent(id)}/replay`);

// Standings (REST): a player's record by name; the players' boards and the best and worst games.
export const playerRecord = (name) => request('GET', `/api/players/${encodeURIComponent(name)}`);
export const playersBoard = (by, limit, offset, claimed = false) => request('GET',
  `/api/leaderboard?by=${encodeURIComponent(by)}&${page(limit, offset)}${claimed ? '&claimed=true' : ''}`);
export const gamesBoard = (order, limit, offset) => request('GET', `/api/leaderboard/games?order=${encodeURIComponent(order)}&${page(limit, offset)}`);

// Turn notifications (REST; js/push.js): the server's VAPID key, and a seat's subscription on this device on
// or off (the token in the body).
export const pushKey = () => request('GET', '/api/push/key');
export const pushOn = (code, body) => request('POST', `/api/rooms/${encodeURIComponent(code)}/push`, body);
export const pushOff = (code, body) => request('POST', `/api/rooms/${encodeURIComponent(code)}/push/off`, body);

// Names kept with passkeys (REST; js/passkeys.js): the ceremonies, the holder's passkeys, codes and sign-outs.
// The session is an HttpOnly cookie the browser sends by itself (same origin); scripts never see it.
export const passkeyClaimOptions = (name) => request('POST', '/api/passkeys/claim/options', { name });
export const passkeyAddOptions = (code) => request('POST', '/api/passkeys/add/options', { code });
export const passkeyRegister = (body) => request('POST', '/api/passkeys/register', body);
export const passkeySignInOptions = (name) => request('POST', '/api/passkeys/sign-in/options', name ? { name } : {});
export const passkeySignIn = (body) => request('POST', '/api/passkeys/sign-in', body);
export const passkeyHolder = () => request('GET', '/api/passkeys/me', null, { cache: 'no-store' });
export const passkeyRemove = (id) => request('DELETE', `/api/passkeys/${Number(id)}`);
export const deviceCode = () => request('POST', '/api/passkeys/device-code', {});
export const signOut = () => request('POST', '/api/passkeys/sign-out', {});
export const signOutEverywhere = () => request('POST', '/api/passkeys/sign-out-everywhere', {});
