// What the browser remembers (localStorage): each key is named here once; private mode just forgets.

const KEYS = {
  token: (code) => `tt.token.${code.toUpperCase()}`, // a seat's secret, per room (boot.js reads it too)
  chatRead: (code) => `tt.read.${code.toUpperCase()}`, // the time of the newest chat line read, per room
  name: 'tt.name',
  lang: 'tt.lang',
  group: 'tt.group',
  notify: 'tt.notify',
  confirm: 'tt.confirm',
  learn: 'tt.learn', // the walkthrough was offered on this browser ('offered')
  coach: 'tt.coach', // 'on' | 'off' (never chosen: off); 'done' once a first game ended with it on
  cards: 'tt.cards',
  deck: 'tt.deck',
  sound: 'tt.sound',
  avatar: 'tt.avatar',
  pushDevice: 'tt.push.device', // a random id of this browser for turn notifications (js/push.js)
};

function read(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch { /* private mode: it lasts as long as the tab */ }
}

export const savedToken = (code) => read(KEYS.token(code));
/** Every table this browser keeps a seat token for: [{code, token}] (the home page's "Your tables"). */
export function savedTables() {
  const prefix = KEYS.token('');
  const tables = [];
  try {
    for (let i = 0; i < localStorage.length; i += 1) {
      const key = localStorage.key(i);
      const token = key?.startsWith(prefix) ? read(key) : null;
      if (token) tables.push({ code: key.slice(prefix.length), token });
    }
  } catch { /* private mode: none kept */ }
  return tables;
}
export const saveToken = (code, token) => write(KEYS.token(code), token);
export const forgetToken = (code) => write(KEYS.token(code), null);
/** A table the server no longer seats this browser at: its token and its chat's read mark go. */
export function forgetTable(code) {
  forgetToken(code);
  write(KEYS.chatRead(code), null);
}
/** The time (the server's ISO ``at``) of the newest chat line read at a table: a reload counts none unread again. */
export const chatReadUntil = (code) => read(KEYS.chatRead(code));
export const setChatReadUntil = (code, at) => write(KEYS.chatRead(code), at);
export const savedName = () => read(KEYS.name) || '';
export const saveName = (name) => write(KEYS.name, name);
export const savedLang = () => read(KEYS.lang);
export const saveLang = (lang) => write(KEYS.lang, lang);
/** Whether the hand is shown grouped into melds (on unless turned off). */
export const groupingOn = () => read(KEYS.group) !== 'off';
export const setGrouping = (on) => write(KEYS.group, on ? 'on' : 'off');
/** Whether the player asked to be told when their turn begins (off unless turned on). */
export const notifyOn = () => read(KEYS.notify) === 'on';
export const setNotify = (on) => write(KEYS.notify, on ? 'on' : 'off');
/** Whether a discard is picked first, then confirmed (off unless turned on: safer on a touch screen). */
export const confirmDiscardsOn = () => read(KEYS.confirm) === 'on';
export const setConfirmDiscards = (on) => write(KEYS.confirm, on ? 'on' : 'off');
/** Whether the walkthrough was already offered on this browser (it is offered once, on the first visit). */
export const learnOffered = () => read(KEYS.learn) === 'offered';
export const setLearnOffered = () => write(KEYS.learn, 'offered');
/** The coach: 'on', 'off', or 'done' (it switched itself off after the first finished game; off too). */
export const coachState = () => read(KEYS.coach) ?? 'off';
export const setCoachState = (value) => write(KEYS.coach, value);
/** The coach is on: chosen by a newcomer ('on', until their first game ends) or turned on again ('kept'). */
export const coachOn = () => ['on', 'kept'].includes(coachState());
/** How the cards look (views/settings.js): larger cards, and a four-colour deck (both off unless turned on). */
export const largeCardsOn = () => read(KEYS.cards) === 'large';
export const setLargeCards = (on) => write(KEYS.cards, on ? 'large' : 'standard');
export const fourColoursOn = () => read(KEYS.deck) === 'four';
export const setFourColours = (on) => write(KEYS.deck, on ? 'four' : 'two');
/** Whether the page may make sound (on unless turned off); the bell still says which turn notices come. */
export const soundOn = () => read(KEYS.sound) !== 'off';
export const setSound = (on) => write(KEYS.sound, on ? 'on' : 'off');
/** The face picked for your seat at every table (an id of the client config's ``avatars``), or null. */
export const savedAvatar = () => read(KEYS.avatar);
export const saveAvatar = (id) => write(KEYS.avatar, id);
/** This browser's id for turn notifications (js/push.js), or null before the first. */
export const savedPushDevice = () => read(KEYS.pushDevice);
export const savePushDevice = (id) => write(KEYS.pushDevice, id);
