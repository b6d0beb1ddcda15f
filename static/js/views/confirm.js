// An in-page yes-or-no question (the browser's own confirm box cannot be translated, styled or tested):
// a modal dialog that keeps the keyboard inside it, answers "no" to Escape or a tap outside, and gives
// focus back to where it was.
import { html, render } from '../html.js';
import { t } from '../i18n.js';
import '../i18n-table.js';

let open = null; // the dialog being shown: a second question replaces it (answered "no")

function template({ title, message, confirm, danger, testid }, finish) {
  return html`<div class="dialog confirm-dialog" role="alertdialog" aria-modal="true" aria-labelledby="confirm-title"
    aria-describedby="confirm-text" data-testid=${testid}><h2 id="confirm-title">${title}</h2><p id="confirm-text">${message}</p><div
    class="row end"><button type="button" class="secondary" data-testid=${`${testid}-cancel`} @click=${() => finish(false)}>${
    t('cancel')}</button><button type="button" class=${danger ? 'primary danger' : 'primary'} data-testid=${`${testid}-yes`}
    @click=${() => finish(true)}>${confirm}</button></div></div>`;
}

/**
 * Ask ``message`` under ``title``; resolves true when ``confirm`` (the button's words) is pressed, false on
 * Cancel, Escape or a tap outside. ``danger``: the button is marked as one that cannot be undone.
 */
export function confirmDialog({ title, message, confirm, danger = false, testid = 'confirm' }) {
  open?.(false);
  const before = document.activeElement;
  return new Promise((resolve) => {
    const backdrop = document.createElement('div');
    backdrop.className = 'backdrop confirm-backdrop';
    const finish = (answer) => {
      if (open !== finish) return;
      open = null;
      backdrop.remove();
      if (before instanceof HTMLElement && before.isConnected) before.focus({ preventScroll: true });
      resolve(answer);
    };
    open = finish;
    render(template({ title, message, confirm, danger, testid }, finish), backdrop);
    const [cancel, yes] = backdrop.querySelectorAll('button');
    backdrop.addEventListener('click', (event) => { if (event.target === backdrop) finish(false); });
    backdrop.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.stopPropagation(); // the page's own Escape (closing the score dialog) is not for this one
        finish(false);
      } else if (event.key === 'Tab') { // two buttons: the keyboard goes round them
        event.preventDefault();
        (document.activeElement === cancel ? yes : cancel).focus();
      }
    });
    document.body.append(backdrop);
    cancel.focus(); // the safe answer first
  });
}
