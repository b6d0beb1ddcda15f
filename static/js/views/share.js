// The room link to share: the address, a copy button, and a QR code for a phone at the same table.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { qrSvg } from '../qr.js';

export function shareBox(url, toast) {
  const input = h('input.link-input', {
    type: 'text', readonly: true, value: url, dir: 'ltr', 'aria-label': t('share_title'),
    'data-testid': 'share-link', onfocus: () => input.select(),
  });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      toast(t('copied'));
    } catch {
      // No async clipboard (plain http on a LAN address): select the text and use the old copy command.
      input.focus();
      input.select();
      toast(document.execCommand?.('copy') ? t('copied') : t('copy_failed'));
    }
  };
  const qr = qrSvg(url, t('qr_label'));
  qr.dataset.testid = 'qr';
  return h('section.panel.share', { 'aria-labelledby': 'share-title' },
    h('h2', { id: 'share-title' }, t('share_title')),
    h('div.share-body', {},
      h('div.qr-wrap', {}, qr),
      h('div.share-text', {},
        h('p.hint', {}, t('share_hint')),
        input,
        h('button.primary', { type: 'button', 'data-testid': 'copy-link', onclick: copy }, t('copy_link')))));
}
