// The room link to share: the address, a copy button, and a QR code for a phone at the same table.
import { html } from '../html.js';
import { t } from '../i18n.js';
import '../i18n-table.js';

export function shareBox(url, toast) {
  const copy = async (event) => {
    const input = event.currentTarget.parentElement.querySelector('[data-testid=share-link]');
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
  return html`<section class="panel share" aria-labelledby="share-title"><h2 id="share-title">${t('share_title')}</h2><div
    class="share-body"><div class="qr-wrap"><img class="qr" src=${`/qr.svg?link=${encodeURIComponent(url)}`} alt=${t('qr_label')}
    width="148" height="148" data-testid="qr"></div><p class="hint">${t('share_hint')}</p><input class="link-input" type="text"
    readonly .value=${url} dir="ltr" aria-label=${t('share_title')} data-testid="share-link"
    @focus=${(e) => e.currentTarget.select()}><button type="button" class="primary" data-testid="copy-link"
    @click=${copy}>${t('copy_link')}</button></div></section>`;
}
