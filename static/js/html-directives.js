// lit-html's directives as the views use them: ``live`` (a field's value or a switch's state checked against
// the page, not the last render) and ``repeat`` (a list kept by key). Apart from html.js so that a first screen
// without a list or a field it sets (a room link's join form) loads none of their files.
export { live } from './vendor/lit-html/directives/live.js';
export { repeat } from './vendor/lit-html/directives/repeat.js';
