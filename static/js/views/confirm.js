// An in-page yes-or-no question (the browser's own confirm box cannot be translated, styled or tested):
// a modal dialog that keeps the keyboard inside it, answers "no" to Escape or a tap outside, and gives
// focus back to where it was.
import { h } from '../dom.js';
import { t } from '../i18n.js';

let open = null; // the dialog being shown: a second question replaces it (answered "no")

/**
 * Ask ``message`` under ``title``; resolves true when ``confirm`` (the button's words) is pressed, false on
 * Cancel, Escape or a tap outside. ``danger``: the button is marked as one that cannot be undone.
 */
export function confirmDialog({ title, message, confirm, danger = false, testid = 'confirm' }) {
  open?.(false);
  const before = document.activeElement;
  return new Promise((resolve) => {
    const cancel = h('button.secondary', { type: 'button', 'data-testid': `${testid}-cancel` }, t('cancel'));
    const yes = h(danger ? 'button.primary.danger' : 'button.primary', { type: 'button', 'data-testid': `${testid}-yes` }, confirm);
    const dialog = h('div.dialog.confirm-dialog', {
      role: 'alertdialog', 'aria-modal': 'true', 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-text',
      'data-testid': testid,
    },
    h('h2', { id: 'confirm-title' }, title),
    h('p', { id: 'confirm-text' }, message),
    h('div.row.end', {}, cancel, yes));
    const backdrop = h('div.backdrop.confirm-backdrop', {}, dialog);

    const finish = (answer) => {
      if (open !== finish) return;
      open = null;
      backdrop.remove();
      if (before instanceof HTMLElement && before.isConnected) before.focus({ preventScroll: true });
      resolve(answer);
    };
    open = finish;
    cancel.addEventListener('click', () => finish(false));
    yes.addEventListener('click', () => finish(true));
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
