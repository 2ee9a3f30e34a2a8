// @ts-check
// Small inline SVG icons, drawn with the text colour: unlike emoji they need no emoji font, so they
// never show as a box. Each is decorative (aria-hidden): the element around it says what it means.
import { html } from './ui.js';

/** @type {Record<string, string>} the path data of each icon, on a 16×16 grid, stroked */
const paths = {
  comment: 'M2.5 3.5h11v7h-6l-3 2.5v-2.5h-2z',
  attachment: 'M10.5 5 6 9.5a1.4 1.4 0 0 0 2 2l5-5a2.8 2.8 0 0 0-4-4l-5 5a4.2 4.2 0 0 0 6 6l4.5-4.5',
  checklist: 'M2.5 2.5h11v11h-11zM5 8l2 2 4-4',
  close: 'M4 4l8 8M12 4l-8 8',
  left: 'M10 3 5 8l5 5',
  right: 'M6 3l5 5-5 5',
  grip: 'M6 4h.01M10 4h.01M6 8h.01M10 8h.01M6 12h.01M10 12h.01',
};

/** An icon by name (comment, attachment, checklist, close, left, right, grip). @param {{name: string}} props */
export function Icon({ name }) {
  return html`<svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false"
    fill="none" stroke="currentColor" stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round"><path d=${paths[name]} /></svg>`;
}
