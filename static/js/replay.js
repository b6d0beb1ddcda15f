// Stepping through a finished game's replay frames (computed by the server's engine: GET /api/games/{id}/replay).
// No DOM here: where we are, where each round starts, and a play/pause timer; the view draws the frame.

export class ReplayPlayer {
  /** ``frames``: the server's steps; ``onChange(player)`` runs after every move of the position. */
  constructor(frames, onChange, intervalMs = 900) {
    this.frames = frames;
    this.index = 0;
    this.onChange = onChange;
    this.intervalMs = intervalMs;
    this.timer = null;
    // The first frame of every round (its deal), by round number.
    this.roundStarts = new Map();
    frames.forEach((f, i) => { if (!this.roundStarts.has(f.round)) this.roundStarts.set(f.round, i); });
  }

  get frame() { return this.frames[this.index]; }
  get last() { return this.frames.length - 1; }
  get playing() { return this.timer !== null; }
  get rounds() { return [...this.roundStarts.keys()]; }

  go(index) {
    const next = Math.max(0, Math.min(this.last, index));
    if (next === this.index) return;
    this.index = next;
    if (this.index === this.last) this.pause();
    this.onChange(this);
  }

  next() { this.go(this.index + 1); }
  prev() { this.go(this.index - 1); }
  first() { this.go(0); }
  end() { this.go(this.last); }

  /** The deal of round ``n``. */
  jumpToRound(n) {
    if (this.roundStarts.has(n)) this.go(this.roundStarts.get(n));
  }

  /** The next round's deal (or the end of the game from the last round). */
  nextRound() {
    const start = this.roundStarts.get(this.frame.round + 1);
    this.go(start ?? this.last);
  }

  /** The start of this round, or of the one before when already at its start. */
  prevRound() {
    const start = this.roundStarts.get(this.frame.round);
    if (this.index > start) this.go(start);
    else this.go(this.roundStarts.get(this.frame.round - 1) ?? 0);
  }

  play() {
    if (this.playing) return;
    if (this.index >= this.last) this.index = 0;
    this.timer = setInterval(() => this.next(), this.intervalMs);
    this.onChange(this);
  }

  pause() {
    if (!this.playing) return;
    clearInterval(this.timer);
    this.timer = null;
    this.onChange(this);
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  /** Stop for good (the page is left). */
  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }
}
