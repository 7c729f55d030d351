import { html } from '../../shared/html.js';

/** A page that only explains something: unknown, removed, paid or expired things. */
export function messagePage(heading: string, message: string) {
  return html`<h1>${heading}</h1><p class="muted">${message}</p>`;
}
