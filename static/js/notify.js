// "Your turn", noticed (opt-in, remembered per browser): a short chime, a vibration on phones, and a browser
// notification when the tab is hidden. Nothing sounds until the player turns it on with the bell, and never
// while sound is off in the settings (views/settings.js): the bell chooses the notices, that switch the sound.
import { t } from './i18n.js';
import { notifyOn, setNotify, soundOn } from './storage.js';
import './i18n-table.js';

let audio = null;
let wasMyTurn = null; // null: no state seen yet (opening a table on your turn is not news)

/** Turn the notices on or off; turning on asks for the browser's permission (a click is needed for it). */
export async function toggleNotify() {
  const on = !notifyOn();
  setNotify(on);
  if (on) {
    chime(); // a click lets the page make sound: this one says what the chime sounds like
    if ('Notification' in window && Notification.permission === 'default') {
      try { await Notification.requestPermission(); } catch { /* refused or unsupported: sound only */ }
    }
  }
  return on;
}

/** The turn chime (the page's one sound): silent while sound is off in the settings. */
export function chime() {
  if (!soundOn()) return;
  try {
    audio = audio || new AudioContext();
    const now = audio.currentTime;
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.setValueAtTime(660, now);
    tone.frequency.setValueAtTime(880, now + 0.12);
    gain.gain.setValueAtTime(0.12, now);
    gain.gain.exponentialRampToValueAtTime(0.001, now + 0.4);
    tone.connect(gain).connect(audio.destination);
    tone.start(now);
    tone.stop(now + 0.4);
  } catch { /* no audio here */ }
}

/** Called with every state: when the player's turn has just begun, tell them the ways they chose. */
export function noticeTurn(myTurn, code) {
  const began = myTurn && wasMyTurn === false;
  wasMyTurn = myTurn;
  if (!began || !notifyOn()) return;
  chime();
  navigator.vibrate?.(180);
  if (document.hidden && 'Notification' in window && Notification.permission === 'granted') {
    try {
      const note = new Notification(t('turn_note_title'), { body: t('turn_note_body', { code }), tag: `tt-${code}` });
      note.onclick = () => { window.focus(); note.close(); };
    } catch { /* some phones allow notifications only from a service worker */ }
  }
}

/** A new table (or none): its first state is not news. */
export function resetTurnNotice() {
  wasMyTurn = null;
}
