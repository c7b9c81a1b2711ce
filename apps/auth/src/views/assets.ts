/** The files the pages link to, by the paths they are served at (routes/assets.ts). */
export { ICON } from './icon';
export { STYLESHEET } from './stylesheet';

export const STYLESHEET_PATH = '/assets/auth.css';
export const ICON_PATH = '/assets/icon.svg';
