// The room's WebSocket: hello with the seat token, versioned states, acknowledged actions, reconnect with backoff.

const BACKOFF_MS = [300, 1000, 2000, 4000, 8000];
// After the server said it is restarting: try every 0.5-1 s (it is back within seconds, and every page of
// every table then comes back at once, spread over that half second) rather than backing off; 40 tries.
const RESTART_RETRY_MS = 500;
const RESTART_TRIES = 40;
const PING_EVERY_MS = 10000;
const SILENCE_LIMIT_MS = 25000; // no frame for this long: the connection is dead even if the browser says open

export class RoomSocket {
  /**
   * handlers: {onStatus(status), onWelcome(msg), onState(msg), onPresence(msg), onAck(msg), onError(msg),
   * onChat(msg), onClosed(code)}
   * status is 'connecting' | 'online' | 'reconnecting'.
   */
  constructor(code, token, handlers) {
    this.code = code;
    this.token = token;
    this.handlers = handlers;
    this.version = null;
    this.attempt = 0;
    this.ws = null;
    this.closed = false;
    this.nextId = 1;
    this.session = Math.random().toString(36).slice(2, 8);
    this.lastSeen = Date.now();
    this.heartbeat = setInterval(() => this.checkAlive(), PING_EVERY_MS);
    this.connect();
  }

  checkAlive() {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.lastSeen > SILENCE_LIMIT_MS) this.ws.close();
    else this.send({ type: 'ping' });
  }

  url() {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${scheme}//${location.host}/ws/${encodeURIComponent(this.code)}`;
  }

  connect() {
    if (this.closed) return;
    this.handlers.onStatus?.(this.attempt === 0 && this.version === null ? 'connecting' : 'reconnecting');
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onopen = () => {
      this.lastSeen = Date.now();
      // acks: 'in_state': the state our own move made carries its id as `ack` (no separate ack message).
      const hello = { type: 'hello', acks: 'in_state' };
      if (this.token) hello.token = this.token;
      if (this.version !== null) hello.last_version = this.version;
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (event) => {
      this.lastSeen = Date.now();
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      this.receive(msg);
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      this.handlers.onStatus?.('reconnecting');
      if (event.code === 4404) { // no such room (the only close the server means as final)
        this.handlers.onClosed?.(event.code, event.reason);
        return;
      }
      const restarting = this.restarting && this.attempt < RESTART_TRIES;
      const delay = restarting
        ? RESTART_RETRY_MS + Math.random() * RESTART_RETRY_MS
        : BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)] + Math.random() * 200;
      this.attempt += 1;
      this.timer = setTimeout(() => this.connect(), delay);
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  receive(msg) {
    switch (msg.type) {
      case 'welcome':
        this.attempt = 0;
        this.restarting = false;
        this.handlers.onStatus?.('online');
        this.handlers.onWelcome?.(msg);
        break;
      case 'state':
        // The ack of our move, inside the state it made: answered just as an ack message would be, first.
        if (typeof msg.ack === 'string') this.handlers.onAck?.({ type: 'ack', id: msg.ack, version: msg.version });
        // States are whole snapshots: an older one is ignored, a newer one (even after a gap) replaces ours.
        if (this.version !== null && typeof msg.version === 'number' && msg.version < this.version) return;
        this.version = msg.version;
        this.handlers.onState?.(msg);
        break;
      case 'presence':
        // Only the room part changed (who is here, auto seats, the turn deadline); the game view stays ours.
        if (this.version !== null && typeof msg.version === 'number' && msg.version < this.version) return;
        this.handlers.onPresence?.(msg);
        if (this.version === null || msg.version > this.version) this.resync(); // we missed a state: ask for it
        break;
      case 'ack': // a retried move already made (or a server that sends acks on their own)
        this.handlers.onAck?.(msg);
        break;
      case 'error':
        this.handlers.onError?.(msg);
        break;
      case 'chat':
        this.handlers.onChat?.(msg);
        break;
      case 'seat_requested':
        if (msg.token) this.token = msg.token; // our token from now on: it finds the request, then opens the seat
        this.handlers.onSeatRequested?.(msg);
        break;
      case 'reaction':
        this.handlers.onReaction?.(msg);
        break;
      case 'hint':
        this.handlers.onHint?.(msg);
        break;
      case 'restarting':
        this.restarting = true;
        this.attempt = 0;
        this.handlers.onStatus?.('reconnecting');
        break;
      default:
        this.handlers.onOther?.(msg);
    }
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Send a game action stamped with our state version; returns its id, or null while offline. */
  action(action) {
    const id = `${this.session}-${this.nextId++}`;
    return this.send({ type: 'action', id, version: this.version, action }) ? id : null;
  }

  resync() {
    this.send({ type: 'resync' });
  }

  /** The network went away: show it now rather than when the socket notices. */
  offline() {
    this.handlers.onStatus?.('reconnecting');
    if (this.ws) this.ws.close();
  }

  /** The network is back: try at once instead of waiting out the backoff. */
  reconnectNow() {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.attempt = 0;
    if (this.ws) this.ws.close();
    else this.connect();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    if (this.ws) this.ws.close();
  }
}
