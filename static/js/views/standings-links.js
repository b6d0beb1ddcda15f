// Links into the standings, drawn by the pages that lead there (home, lobby, game over, history) without
// loading the standings view itself; and a finished game's replay by its id alone.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import '../i18n-standings.js';

export const STANDINGS_PATH = '/standings';

/** A player's standings page: the name as typed at the table (the server folds case and look-alikes). */
export const playerPath = (name) => `${STANDINGS_PATH}/${encodeURIComponent(name)}`;

/** A finished game's replay, by its public id (a record never names its table). */
export const gamePath = (id) => `/games/${encodeURIComponent(id)}`;

/** An in-page link: a click goes through the client's router, a middle click or a new tab works too. */
export function pageLink(tag, path, actions, attrs, ...children) {
  return h(tag, {
    href: path, ...attrs,
    onclick: (e) => {
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      actions.navigate(path);
    },
  }, ...children);
}

/** "Standings": the server's boards. */
export function standingsLink(actions, tag = 'a.link.standings-link') {
  return pageLink(tag, STANDINGS_PATH, actions, { 'data-testid': 'standings-link' }, t('standings'));
}

/**
 * A player's name that opens their standings. ``newTab``: for a table in play, whose page must stay open
 * (a phone would otherwise leave the game, its socket and its turn timer).
 */
export function playerLink(name, actions, { newTab = false, label = name, testid = null } = {}) {
  const attrs = { dir: 'auto', 'data-testid': testid, title: t('standings_of', { name }) };
  if (newTab) {
    return h('a.player-link', { href: playerPath(name), target: '_blank', rel: 'noopener', ...attrs }, label);
  }
  return pageLink('a.player-link', playerPath(name), actions, attrs, label);
}
