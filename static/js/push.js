// Turn notifications (Web Push) for a table: the seat of ``token`` at table ``code`` is told on this device
// when its turn starts at a table played at its own pace (and an hour before it runs out). The table's bell
// calls these; nothing here runs on its own, and the browser's permission prompt shows only when
// ``subscribe`` is called, so call it from a tap.
//
//   import { pushSupported, pushPermission, subscribe, unsubscribe } from './push.js';
//   pushSupported()                    whether this browser can get them (a service worker, PushManager and
//                                      Notification; not in a private window of some browsers)
//   pushPermission()                   'granted' | 'denied' | 'default' (not asked yet) | 'unsupported'
//   await subscribe(code, token, lang) true once the server will notify this seat here (lang: 'en' | 'fa');
//                                      false when the permission was not given (or push is unsupported);
//                                      throws api.js's ApiError when the server refuses (err_<code> in i18n.js)
//   await unsubscribe(code, token)     the server stops notifying this seat here (true once it said so)
//
// One browser has one push subscription (per service worker) for every table: unsubscribe tells the server
// to forget this table's, and leaves the browser's subscription for the other tables. The device id is a
// random id kept in localStorage (storage.js), so subscribing again replaces this device's subscription.
import { pushKey, pushOff, pushOn } from './api.js';
import { savePushDevice, savedPushDevice } from './storage.js';

export function pushSupported() {
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

export function pushPermission() {
  return pushSupported() ? Notification.permission : 'unsupported';
}

/** This browser's device id for notifications: made once (24 random base64url characters) and kept. */
export function deviceId() {
  let id = savedPushDevice();
  if (!id || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
    const bytes = crypto.getRandomValues(new Uint8Array(18));
    id = btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_');
    savePushDevice(id);
  }
  return id;
}

function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

/** The browser's push subscription for this server's key: the one kept, or a new one. */
async function browserSubscription() {
  const registration = await navigator.serviceWorker.ready;
  const { key } = await pushKey();
  const kept = await registration.pushManager.getSubscription();
  if (kept) {
    const keptKey = kept.options?.applicationServerKey;
    const same = !keptKey || new Uint8Array(keptKey).join() === keyBytes(key).join();
    if (same) return kept;
    await kept.unsubscribe(); // made for another key (the server's was replaced): it would be refused
  }
  return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
}

export async function subscribe(code, token, lang = 'en') {
  if (!pushSupported()) return false;
  const permission = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
  if (permission !== 'granted') return false;
  const subscription = (await browserSubscription()).toJSON();
  await pushOn(code, { token, device: deviceId(), subscription, lang: lang === 'fa' ? 'fa' : 'en' });
  return true;
}

export async function unsubscribe(code, token) {
  await pushOff(code, { token, device: deviceId() });
  return true;
}
