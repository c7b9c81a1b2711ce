/** The site's icon (a person on the accent colour), for the browser's tab and bookmarks. */
export const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b5cad"/><circle cx="16" cy="12.5" r="5.5" fill="#fff"/><path d="M6.5 27c1.2-5.6 5-8.5 9.5-8.5s8.3 2.9 9.5 8.5z" fill="#fff"/></svg>
`;
