// Every string the client shows, one dictionary per language, and the switch between them (LTR/RTL).

const en = {
  app_title: 'Three Thirteen',
  tagline: 'Eleven rounds of rummy with friends. Make sets and runs; the fewest points wins.',
  lang_other: 'فارسی',
  lang_other_label: 'Switch to Persian',
  conn_connecting: 'Connecting…',
  conn_reconnecting: 'Reconnecting…',
  conn_online: 'Connected',
  home_link: 'Home',

  create_title: 'New table',
  your_name: 'Your name',
  name_placeholder: 'e.g. Sara',
  seats: 'Players',
  seats_hint: 'Seats at the table, you included. Bots take some of them.',
  bots: 'Computer players',
  bots_none: 'No computer players: friends fill the seats.',
  add_bot: 'Add a computer player',
  remove: 'Remove',
  bot_easy: 'Easy',
  bot_normal: 'Normal',
  bot_hard: 'Hard',
  bot_random: 'Random',
  bot_level: 'Level',
  options_title: 'House rules',
  opt_decks: 'Decks',
  opt_decks_hint: '52-card decks shuffled together. Auto: 1 for 2 players, 2 for 3–4, more for bigger tables.',
  auto: 'Auto',
  opt_jokers: 'Jokers',
  opt_jokers_hint: 'Two jokers per deck, wild in every round.',
  opt_joker_points: 'Joker penalty',
  opt_joker_points_hint: 'Points for a joker left unmelded.',
  opt_ace_high_low: 'Ace high or low',
  opt_ace_high_low_hint: 'Q-K-A is a run too (never K-A-2), but an unmelded ace costs 15.',
  opt_face_values: 'Face cards count',
  opt_face_values_hint: 'Unmelded J, Q, K cost 10 each, or 11, 12 and 13.',
  face_ten: '10 each',
  face_rank: 'J 11 · Q 12 · K 13',
  opt_natural_in_every_meld: 'A natural card in every meld',
  opt_natural_in_every_meld_hint: 'A meld may not be made of wild cards only (matters with jokers).',
  opt_turn_timer: 'Turn timer',
  opt_turn_timer_hint: 'Seconds per turn before a move is made for you. Off: no limit.',
  off: 'Off',
  seconds: '{n} s',
  create_button: 'Create table',
  join_title: 'Join a table',
  code: 'Table code',
  code_placeholder: 'e.g. K7QX2',
  join_button: 'Join',
  watch_button: 'Just watch',
  rules_title: 'How to play',
  rules_1: 'Round 1 deals 3 cards, round 11 deals 13. The rank equal to the cards dealt is wild (3s, then 4s … Kings).',
  rules_2: 'On your turn draw from the stock or the discard pile, then discard one card.',
  rules_3: 'Sets (7-7-7) and runs of one suit (4-5-6♥) are melds. When all but one card meld, go out: everyone else gets one last turn.',
  rules_4: 'Unmelded cards count against you. After 11 rounds the lowest total wins.',

  share_title: 'Invite friends',
  share_hint: 'Send the link, or scan the code with a phone at the table.',
  copy_link: 'Copy link',
  copied: 'Link copied',
  copy_failed: 'Copy the link by hand',
  qr_label: 'QR code of the table link',
  lobby_title: 'Table {code}',
  lobby_waiting: 'Waiting for players',
  open_seat: 'Open seat',
  you: 'you',
  host: 'host',
  bot: 'bot',
  online: 'online',
  offline: 'offline',
  start: 'Start game',
  waiting_host: 'Waiting for the host to start…',
  watching: 'You are watching this table.',
  spectators: '{n} watching',
  join_this: 'Join this table',
  table_full: 'This table has no open seat: you are watching.',
  game_started: 'The game has started: you can watch it.',
  options_locked: 'Only the host changes the house rules.',

  round: 'Round {round} of {rounds}',
  cards_dealt: '{n} cards',
  wild: 'Wild: {rank}',
  wild_short: 'wild',
  stock: 'Stock',
  stock_label: 'Stock, {n} cards: draw from the stock',
  discard_pile: 'Discard',
  discard_label: 'Discard pile, top card {card}: take it',
  discard_empty: 'Discard pile, empty',
  left: '{n} left',
  your_turn_draw: 'Your turn: draw from the stock or the discard pile.',
  your_turn_discard: 'Discard a card.',
  your_turn_discard_go: 'Discard a card, or go out!',
  waiting_for: '{name} is playing…',
  final_turns: '{name} went out! Everyone else has one last turn.',
  you_went_out: 'You went out! Everyone else has one last turn.',
  last_turn: 'This is your last turn.',
  penalty: 'Penalty {n}',
  group: 'Group melds',
  set: 'Set',
  run: 'Run',
  unmelded: 'Unmelded',
  your_hand: 'Your hand',
  go_out: 'Go out',
  go_out_pick: 'Pick the card to discard as you go out.',
  cancel: 'Cancel',
  scores: 'Scores',
  chat: 'Chat',
  send: 'Send',
  chat_placeholder: 'Say something…',
  card_count: '{n} cards',
  points: '{n} pts',
  dealer: 'Dealer',
  dealer_short: 'D',
  turn_now: 'to play',
  went_out_mark: 'out',
  reorder_hint: 'Drag cards (or Shift + arrow keys) to reorder.',
  ev_draw_stock: '{name} drew from the stock',
  ev_draw_discard: '{name} took {card}',
  ev_discard: '{name} threw {card}',
  ev_go_out: '{name} went out, throwing {card}',
  ev_reshuffle: 'The discards were shuffled into a new stock',
  ev_you: 'You',

  round_over: 'Round {n} is over',
  went_out_by: '{name} went out',
  continue: 'Continue',
  score_sheet: 'Score sheet',
  total: 'Total',
  leader: 'Leader',
  round_col: 'Round',
  game_over: 'Game over',
  wins: '{names} wins!',
  wins_many: '{names} share the win!',
  rematch: 'Play again',
  waiting_rematch: 'Waiting for the host to start a new game…',
  close: 'Close',
  and: ' and ',

  error: 'That did not work: {message}',
  err_not_found: 'No table with that code.',
  err_network: 'The server cannot be reached.',
  err_name: 'Type your name first.',
  err_room_not_found: 'No table with that code.',
  err_stale_version: 'The table had moved on: this is it now.',
  err_not_your_turn: 'It is not your turn.',
  err_wrong_phase: 'Not now: draw first, then discard.',
  err_cannot_go_out: 'You cannot go out with that card.',
  err_rate_limited: 'A little slower, please.',
  err_not_host: 'Only the host can do that.',
  err_seats_full: 'Every seat is taken.',
  resynced: 'Out of step: showing the true table.',
};

const fa = {
  app_title: 'سه و سیزده',
  tagline: 'یازده دست رامی با دوستان. ست و ردیف بسازید؛ کمترین امتیاز برنده است.',
  lang_other: 'English',
  lang_other_label: 'تغییر زبان به انگلیسی',
  conn_connecting: 'در حال اتصال…',
  conn_reconnecting: 'در حال اتصال دوباره…',
  conn_online: 'متصل',
  home_link: 'خانه',

  create_title: 'میز تازه',
  your_name: 'نام شما',
  name_placeholder: 'مثلاً سارا',
  seats: 'بازیکنان',
  seats_hint: 'تعداد جاهای میز، با خودتان. رایانه می‌تواند چند جا را پر کند.',
  bots: 'بازیکن‌های رایانه‌ای',
  bots_none: 'بدون رایانه: دوستان جاها را پر می‌کنند.',
  add_bot: 'افزودن بازیکن رایانه‌ای',
  remove: 'حذف',
  bot_easy: 'آسان',
  bot_normal: 'معمولی',
  bot_hard: 'سخت',
  bot_random: 'تصادفی',
  bot_level: 'سطح',
  options_title: 'قوانین خانگی',
  opt_decks: 'تعداد دسته‌ها',
  opt_decks_hint: 'دسته‌های ۵۲ کارتی که با هم بُر می‌خورند. خودکار: ۱ برای ۲ نفر، ۲ برای ۳ تا ۴ نفر، بیشتر برای میز بزرگ‌تر.',
  auto: 'خودکار',
  opt_jokers: 'ژوکر',
  opt_jokers_hint: 'دو ژوکر در هر دسته که در همه‌ی دست‌ها وحشی‌اند.',
  opt_joker_points: 'جریمه‌ی ژوکر',
  opt_joker_points_hint: 'امتیاز ژوکری که در ترکیب نیامده.',
  opt_ace_high_low: 'آس بالا یا پایین',
  opt_ace_high_low_hint: 'Q-K-A هم ردیف است (نه K-A-2)، ولی آسِ بی‌ترکیب ۱۵ امتیاز دارد.',
  opt_face_values: 'ارزش کارت‌های تصویری',
  opt_face_values_hint: 'J، Q و K بی‌ترکیب هر کدام ۱۰ امتیاز، یا ۱۱، ۱۲ و ۱۳.',
  face_ten: 'هر کدام ۱۰',
  face_rank: 'J ۱۱ · Q ۱۲ · K ۱۳',
  opt_natural_in_every_meld: 'یک کارت طبیعی در هر ترکیب',
  opt_natural_in_every_meld_hint: 'ترکیبی که فقط از کارت‌های وحشی باشد پذیرفته نیست (با ژوکر مهم است).',
  opt_turn_timer: 'زمان هر نوبت',
  opt_turn_timer_hint: 'چند ثانیه برای هر نوبت؛ پس از آن به جای شما بازی می‌شود. خاموش: بی‌محدودیت.',
  off: 'خاموش',
  seconds: '{n} ثانیه',
  create_button: 'ساختن میز',
  join_title: 'پیوستن به میز',
  code: 'کد میز',
  code_placeholder: 'مثلاً K7QX2',
  join_button: 'پیوستن',
  watch_button: 'فقط تماشا',
  rules_title: 'روش بازی',
  rules_1: 'دست ۱ سه کارت پخش می‌کند و دست ۱۱ سیزده کارت. کارتی که عددش برابر تعداد کارت‌هاست وحشی است (۳ها، سپس ۴ها … تا شاه‌ها).',
  rules_2: 'در نوبت خود یک کارت از دسته یا از کارت‌های دورریخته بردارید، سپس یک کارت دور بیندازید.',
  rules_3: 'ست (۷-۷-۷) و ردیفِ یک خال (۴-۵-۶ دل) ترکیب‌اند. وقتی همه‌ی کارت‌ها جز یکی ترکیب شدند بیرون بروید: بقیه یک نوبت آخر دارند.',
  rules_4: 'کارت‌های بی‌ترکیب امتیاز منفی‌اند. پس از ۱۱ دست کمترین جمع برنده است.',

  share_title: 'دعوت از دوستان',
  share_hint: 'پیوند را بفرستید، یا با گوشی این کد را اسکن کنید.',
  copy_link: 'کپی پیوند',
  copied: 'پیوند کپی شد',
  copy_failed: 'پیوند را دستی کپی کنید',
  qr_label: 'کد QR پیوند میز',
  lobby_title: 'میز {code}',
  lobby_waiting: 'در انتظار بازیکنان',
  open_seat: 'جای خالی',
  you: 'شما',
  host: 'میزبان',
  bot: 'رایانه',
  online: 'آنلاین',
  offline: 'آفلاین',
  start: 'شروع بازی',
  waiting_host: 'در انتظار شروع بازی توسط میزبان…',
  watching: 'شما این میز را تماشا می‌کنید.',
  spectators: '{n} تماشاگر',
  join_this: 'پیوستن به این میز',
  table_full: 'این میز جای خالی ندارد: شما تماشاگر هستید.',
  game_started: 'بازی شروع شده است: می‌توانید تماشا کنید.',
  options_locked: 'فقط میزبان قوانین را تغییر می‌دهد.',

  round: 'دست {round} از {rounds}',
  cards_dealt: '{n} کارت',
  wild: 'وحشی: {rank}',
  wild_short: 'وحشی',
  stock: 'دسته',
  stock_label: 'دسته، {n} کارت: از دسته بردارید',
  discard_pile: 'زمین',
  discard_label: 'کارت رو، {card}: آن را بردارید',
  discard_empty: 'زمین خالی است',
  left: '{n} مانده',
  your_turn_draw: 'نوبت شماست: از دسته یا زمین یک کارت بردارید.',
  your_turn_discard: 'یک کارت دور بیندازید.',
  your_turn_discard_go: 'یک کارت دور بیندازید، یا بیرون بروید!',
  waiting_for: '{name} بازی می‌کند…',
  final_turns: '{name} بیرون رفت! هر کس دیگر یک نوبت آخر دارد.',
  you_went_out: 'شما بیرون رفتید! بقیه یک نوبت آخر دارند.',
  last_turn: 'این نوبت آخر شماست.',
  penalty: 'جریمه {n}',
  group: 'گروه‌بندی ترکیب‌ها',
  set: 'ست',
  run: 'ردیف',
  unmelded: 'بی‌ترکیب',
  your_hand: 'دست شما',
  go_out: 'بیرون رفتن',
  go_out_pick: 'کارتی را که هنگام بیرون رفتن دور می‌اندازید انتخاب کنید.',
  cancel: 'انصراف',
  scores: 'امتیازها',
  chat: 'گفتگو',
  send: 'بفرست',
  chat_placeholder: 'چیزی بنویسید…',
  card_count: '{n} کارت',
  points: '{n} امتیاز',
  dealer: 'پخش‌کننده',
  dealer_short: 'پ',
  turn_now: 'در نوبت',
  went_out_mark: 'بیرون',
  reorder_hint: 'برای جابه‌جایی، کارت‌ها را بکشید (یا Shift و کلیدهای جهت).',
  ev_draw_stock: '{name} از دسته برداشت',
  ev_draw_discard: '{name} کارت {card} را برداشت',
  ev_discard: '{name} کارت {card} را انداخت',
  ev_go_out: '{name} با انداختن {card} بیرون رفت',
  ev_reshuffle: 'کارت‌های زمین بُر خوردند و دسته‌ی تازه شدند',
  ev_you: 'شما',

  round_over: 'دست {n} تمام شد',
  went_out_by: '{name} بیرون رفت',
  continue: 'ادامه',
  score_sheet: 'جدول امتیاز',
  total: 'جمع',
  leader: 'پیشتاز',
  round_col: 'دست',
  game_over: 'بازی تمام شد',
  wins: '{names} برنده شد!',
  wins_many: '{names} با هم برنده شدند!',
  rematch: 'بازی دوباره',
  waiting_rematch: 'در انتظار شروع بازی تازه توسط میزبان…',
  close: 'بستن',
  and: ' و ',

  error: 'انجام نشد: {message}',
  err_not_found: 'میزی با این کد نیست.',
  err_network: 'به سرور دسترسی نیست.',
  err_name: 'اول نام خود را بنویسید.',
  err_room_not_found: 'میزی با این کد نیست.',
  err_stale_version: 'میز جلوتر رفته بود: این وضعیت تازه است.',
  err_not_your_turn: 'نوبت شما نیست.',
  err_wrong_phase: 'الان نه: اول بردارید، بعد دور بیندازید.',
  err_cannot_go_out: 'با این کارت نمی‌توانید بیرون بروید.',
  err_rate_limited: 'لطفاً کمی آهسته‌تر.',
  err_not_host: 'فقط میزبان می‌تواند.',
  err_seats_full: 'همه‌ی جاها پر است.',
  resynced: 'ناهماهنگی پیش آمد: وضعیت درست میز نمایش داده شد.',
};

// Card words for accessible labels; ranks and suit symbols on the cards themselves stay as printed.
const cardWords = {
  en: {
    ranks: { A: 'ace', J: 'jack', Q: 'queen', K: 'king' },
    suits: { S: 'spades', H: 'hearts', D: 'diamonds', C: 'clubs' },
    joker: 'joker',
    label: '{rank} of {suit}',
    wild: ', wild',
  },
  fa: {
    ranks: { A: 'آس', J: 'سرباز', Q: 'بی‌بی', K: 'شاه' },
    suits: { S: 'پیک', H: 'دل', D: 'خشت', C: 'گشنیز' },
    joker: 'ژوکر',
    label: '{rank} {suit}',
    wild: '، وحشی',
  },
};

export const DICTIONARIES = { en, fa };
export const LANGS = ['en', 'fa'];
const STORE_KEY = 'tt.lang';
const listeners = new Set();
let current = readStored();

function readStored() {
  try {
    const saved = localStorage.getItem(STORE_KEY);
    if (LANGS.includes(saved)) return saved;
  } catch { /* storage may be off */ }
  return (navigator.language || '').toLowerCase().startsWith('fa') ? 'fa' : 'en';
}

export function lang() {
  return current;
}

/** Set the language, remember it, flip the page direction, and tell every listener. */
export function setLang(next) {
  if (!LANGS.includes(next)) return;
  current = next;
  try { localStorage.setItem(STORE_KEY, next); } catch { /* ignore */ }
  applyDocument();
  for (const fn of listeners) fn(next);
}

export function onLangChange(fn) {
  listeners.add(fn);
}

export function applyDocument() {
  const root = document.documentElement;
  root.lang = current;
  root.dir = current === 'fa' ? 'rtl' : 'ltr';
  document.title = t('app_title');
}

const PERSIAN_DIGITS = '۰۱۲۳۴۵۶۷۸۹';

/** A number in the current language's digits. */
export function num(value) {
  const text = String(value);
  return current === 'fa' ? text.replace(/[0-9]/g, (d) => PERSIAN_DIGITS[d]) : text;
}

/** The string ``key`` with {placeholders} filled (numbers in local digits). */
export function t(key, params = {}) {
  const dict = DICTIONARIES[current];
  let text = dict[key] ?? en[key] ?? key;
  for (const [name, value] of Object.entries(params)) {
    text = text.replaceAll(`{${name}}`, typeof value === 'number' ? num(value) : String(value));
  }
  return text;
}

/** Words for a card's accessible label in the current language. */
export function cardLabelWords() {
  return cardWords[current];
}
