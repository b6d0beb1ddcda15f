// The strings of the home page's "Your tables" (views/my-tables.js), both languages; added to i18n.js's
// dictionaries when that view loads.
import { addStrings } from './i18n.js';

export const TABLES_STRINGS = {
  en: {
    mt_title: 'Your tables',
    mt_loading: 'Looking up your tables…',
    mt_failed: 'Your tables could not be looked up just now.',
    mt_retry: 'Try again',
    mt_table_of: '{name}’s table',
    mt_your_table: 'Your table',
    mt_your_turn: 'Your turn',
    mt_turn_of: '{name}’s turn',
    mt_lobby: 'Not started',
    mt_over: 'Game over',
    mt_bot_plays: 'A bot plays your seat',
    mt_asked: 'You asked for a seat',
    mt_you: 'you',
    mt_round: 'Round {n}',
    mt_meta_sep: ' · ',
    mt_hours_left: '{n} h left',
    mt_minutes_left: '{n} min left',
    mt_time_up: 'Time is up',
    mt_unread_label: '{n} unread chat messages',
    mt_unread_label_one: 'One unread chat message',
    mt_finished: 'Finished ({n})',
  },
  fa: {
    mt_title: 'میزهای شما',
    mt_loading: 'در حال یافتن میزهای شما…',
    mt_failed: 'الان نشد میزهای شما را پیدا کنیم.',
    mt_retry: 'دوباره',
    mt_table_of: 'میز {name}',
    mt_your_table: 'میز شما',
    mt_your_turn: 'نوبت شما',
    mt_turn_of: 'نوبت {name}',
    mt_lobby: 'شروع نشده',
    mt_over: 'بازی تمام شد',
    mt_bot_plays: 'رایانه به جای شما بازی می‌کند',
    mt_asked: 'درخواست صندلی داده‌اید',
    mt_you: 'شما',
    mt_round: 'دور {n}',
    // Not a middle dot: between Persian digits it reads as a zero ('۱ · ۲۴' looks like ۲۴۰۱).
    mt_meta_sep: '، ',
    mt_hours_left: '{n} ساعت مانده',
    mt_minutes_left: '{n} دقیقه مانده',
    mt_time_up: 'وقت تمام شد',
    mt_unread_label: '{n} پیام گفتگوی خوانده‌نشده',
    mt_unread_label_one: 'یک پیام گفتگوی خوانده‌نشده',
    mt_finished: 'تمام‌شده ({n})',
  },
};

addStrings(TABLES_STRINGS);
