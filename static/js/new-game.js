// On a table's history or replay page: look at the table now and then (no socket: the seat is not taken
// up by browsing), and say so, with a way back, when a new game starts there.
import * as api from './api.js';
import { element, html } from './html.js';
import { t } from './i18n.js';
import './i18n-table.js';

export const EVERY_MS = 4000;

export class NewGameWatch {
  /**
   * ``known``: the id of the table's game when its player left it (null: none yet; undefined: not known,
   * the first look sets it). ``show(room)`` is called once a game other than ``known`` is being played.
   */
  constructor(code, known, show) {
    this.code = code;
    this.known = known;
    this.show = show;
    this.timer = setInterval(() => this.check(), EVERY_MS);
    if (known === undefined) this.check();
  }

  async check() {
    let room;
    try {
      room = await api.getRoomNow(this.code);
    } catch {
      return; // offline or gone: the next look tries again
    }
    const id = room.game?.id ?? null;
    if (this.known === undefined) {
      this.known = id;
    } else if (id !== null && id !== this.known && room.game.status === 'playing') {
      this.known = id;
      this.show(room);
    }
  }

  stop() {
    clearInterval(this.timer);
  }
}

/** The notice that a new game started at ``code`` (an element of its own, put over the page): a link back to the
 * table, and a button to close it. */
export function newGameBanner(code, navigate, onClose) {
  const path = `/r/${code}`;
  return element(html`<div class="new-game-banner" role="status" data-testid="new-game-banner"><span>${t('new_game_started')}</span><a
    class="primary small" href=${path} data-testid="new-game-back" @click=${(e) => { e.preventDefault(); onClose(); navigate(path); }}>${
    t('back_to_table')}</a><button type="button" class="link" aria-label=${t('close')} @click=${() => onClose()}>×</button></div>`);
}
