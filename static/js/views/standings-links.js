// Links into the standings, drawn by the pages that lead there (home, lobby, game over, history) without
// loading the standings view itself; and a finished game's replay by its id alone.
import { html, nothing } from '../html.js';
import { t } from '../i18n.js';
import '../i18n-standings.js';

export const STANDINGS_PATH = '/standings';

/** A player's standings page: the name as typed at the table (the server folds case and look-alikes). */
export const playerPath = (name) => `${STANDINGS_PATH}/${encodeURIComponent(name)}`;

/** The passkeys page, to keep ``name`` with a passkey (views/passkeys.js). */
export const keepPath = (name) => `/passkeys?name=${encodeURIComponent(name)}`;

/** "Keep this name": a person's own name, kept with a passkey (the game over's, the record's). */
export function keepLink(name, actions, className = 'secondary') {
  return pageLink(keepPath(name), actions, { class: className, testid: 'keep-this-name' }, t('keep_name'));
}

/** A finished game's replay, by its public id (a record never names its table). */
export const gamePath = (id) => `/games/${encodeURIComponent(id)}`;

/** A click that the client's router takes (a middle click, a new tab or a modified click is the browser's). */
export function follow(path, actions) {
  return (e) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    actions.navigate(path);
  };
}

/** An in-page link: ``attrs`` {class, testid, label (aria-label), title, dir}; ``content`` its text or template. */
export function pageLink(path, actions, attrs, content) {
  return html`<a class=${attrs.class ?? nothing} href=${path} data-testid=${attrs.testid ?? nothing}
    aria-label=${attrs.label ?? nothing} title=${attrs.title ?? nothing} dir=${attrs.dir ?? nothing}
    @click=${follow(path, actions)}>${content}</a>`;
}

/** "Standings": the server's boards. */
export function standingsLink(actions, className = 'link standings-link') {
  return pageLink(STANDINGS_PATH, actions, { class: className, testid: 'standings-link' }, t('standings'));
}

/**
 * A player's name that opens their standings. ``newTab``: for a table in play, whose page must stay open
 * (a phone would otherwise leave the game, its socket and its turn timer).
 */
export function playerLink(name, actions, { newTab = false, label = name, testid = null } = {}) {
  const title = t('standings_of', { name });
  if (newTab) {
    return html`<a class="player-link" href=${playerPath(name)} target="_blank" rel="noopener" dir="auto"
      data-testid=${testid ?? nothing} title=${title}>${label}</a>`;
  }
  return pageLink(playerPath(name), actions, { class: 'player-link', dir: 'auto', testid, title }, label);
}
