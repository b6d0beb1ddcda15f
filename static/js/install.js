// Installing the client as an app: the manifest in the page's language, and the service worker (static/sw.js)
// that keeps the client for slow links and offline.
import { lang, onLangChange } from './i18n.js';

/** The manifest in the page's language (/manifest.en.webmanifest or .fa: the same app, app/api/install.py). */
function followLanguageInManifest() {
  const link = document.querySelector('link[rel=manifest]');
  if (link) link.href = `/manifest.${lang()}.webmanifest`;
}
followLanguageInManifest();
onLangChange(followLanguageInManifest);
// Browsers allow a service worker only in a secure context (https, or this machine: localhost, 127.0.0.1).
if ('serviceWorker' in navigator && window.isSecureContext) {
  window.addEventListener('load', () => navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => {}), { once: true });
}
