// The room link to share: the address, a copy button, and a QR code for a phone at the same table.
import { h } from '../dom.js';
import { t } from '../i18n.js';

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
  // Drawn by the server (segno); the image's URL holds the link, so it is cached like any static file.
  const qr = h('img.qr', {
    src: `/qr.svg?link=${encodeURIComponent(url)}`, alt: t('qr_label'), width: 148, height: 148,
    'data-testid': 'qr',
  });
  return h('section.panel.share', { 'aria-labelledby': 'share-title' },
    h('h2', { id: 'share-title' }, t('share_title')),
    h('div.share-body', {},
      h('div.qr-wrap', {}, qr),
      h('p.hint', {}, t('share_hint')),
      input,
      h('button.primary', { type: 'button', 'data-testid': 'copy-link', onclick: copy }, t('copy_link'))));
}
