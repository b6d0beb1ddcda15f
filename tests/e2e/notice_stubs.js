// Stands in for the browser's notification, vibration and audio, and lets a test hide the tab.
window.__notes = []; window.__buzz = []; window.__chimes = 0; window.__hidden = false;
window.Notification = class { constructor(title, opts) { window.__notes.push([title, opts.body]); } close() {} };
window.Notification.permission = 'default';
window.Notification.requestPermission = async () => { window.Notification.permission = 'granted'; return 'granted'; };
navigator.vibrate = (ms) => { window.__buzz.push(ms); return true; };
window.AudioContext = class {
  constructor() { this.currentTime = 0; this.destination = {}; }
  createOscillator() {
    return { frequency: { setValueAtTime() {} }, connect: (n) => n, start() { window.__chimes += 1; }, stop() {} };
  }
  createGain() { return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (n) => n }; }
};
Object.defineProperty(document, 'hidden', { get: () => window.__hidden });
