// Your way of seeing the cards, kept per browser: larger cards, a four-colour deck, and whether the page
// makes sound. A gear in the top bar (every page) opens a modal dialog that keeps the keyboard inside it,
// closes on Escape or a tap outside, and gives focus back to the gear. A change shows at once.
import { html, render } from '../html.js';
import { t } from '../i18n.js';
import {
  fourColoursOn, largeCardsOn, setFourColours, setLargeCards, setSound, soundOn,
} from '../storage.js';

/** Put the saved looks on the page (``html[data-cards]``, ``html[data-deck]``: app.css sizes and colours). */
export function applyLooks() {
  document.documentElement.dataset.cards = largeCardsOn() ? 'large' : 'standard';
  document.documentElement.dataset.deck = fourColoursOn() ? 'four' : 'two';
}

const SWITCHES = [
  { key: 'large_cards', on: largeCardsOn, set: setLargeCards },
  { key: 'four_colours', on: fourColoursOn, set: setFourColours },
  { key: 'sound', on: soundOn, set: setSound },
];

let close = null; // the open dialog's closer

/** The gear that opens the settings; ``changed`` redraws the page after a change (the hand is fitted again). */
export function settingsButton(changed) {
  return html`<button type="button" class="gear" data-testid="settings" aria-label=${t('settings')} title=${t('settings')}
    aria-haspopup="dialog" @click=${() => openSettings(changed)}><span aria-hidden="true">⚙</span></button>`;
}

/** The dialog, once its strings (i18n-looks.js: not needed before the gear is pressed) have loaded. */
export function openSettings(changed) {
  import('../i18n-looks.js').then(() => drawSettings(changed), () => {});
}

function settingsTemplate(changed, finish) {
  const flip = (set) => (event) => {
    set(event.currentTarget.checked);
    applyLooks();
    changed?.();
    window.dispatchEvent(new Event('resize')); // the hand is fitted to the new card size
  };
  return html`<div class="dialog settings-dialog" role="dialog" aria-modal="true" aria-labelledby="settings-title"
    data-testid="settings-dialog"><h2 id="settings-title">${t('settings')}</h2><p class="hint">${t('settings_intro')}</p><div
    class="settings-list">${SWITCHES.map(({ key, on, set }) => html`<label class="setting"><input class="switch" type="checkbox"
    role="switch" .checked=${on()} data-testid=${`setting-${key}`} aria-describedby=${`setting-${key}-hint`} @change=${flip(set)}><span
    class="setting-text"><span class="setting-name">${t(`setting_${key}`)}</span><span class="hint" id=${`setting-${key}-hint`}>${
    t(`setting_${key}_hint`)}</span></span></label>`)}</div><div class="row end"><button type="button" class="primary"
    data-testid="settings-close" @click=${finish}>${t('close')}</button></div></div>`;
}

function drawSettings(changed) {
  close?.();
  const backdrop = document.createElement('div');
  backdrop.className = 'backdrop settings-backdrop';
  const finish = () => {
    if (close !== finish) return;
    close = null;
    backdrop.remove();
    document.querySelector('[data-testid=settings]')?.focus({ preventScroll: true }); // the gear
  };
  close = finish;
  render(settingsTemplate(changed, finish), backdrop);
  const dialog = backdrop.firstElementChild;
  backdrop.addEventListener('click', (event) => { if (event.target === backdrop) finish(); });
  backdrop.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      finish();
    } else if (event.key === 'Tab') { // the keyboard goes round the dialog's controls
      const stops = [...dialog.querySelectorAll('input, button')];
      const at = stops.indexOf(document.activeElement);
      const next = (at + (event.shiftKey ? -1 : 1) + stops.length) % stops.length;
      event.preventDefault();
      stops[next].focus();
    }
  });
  document.body.append(backdrop);
  dialog.querySelector('input').focus();
}
