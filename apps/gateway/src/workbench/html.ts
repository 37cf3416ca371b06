/**
 * HTML for the workbench (DESIGN.md §5a): every interpolated value is escaped unless it is already
 * Html built by this module, so a stored string — a file's content, a refusal, a tool's output —
 * is always text on the page, never markup (OWASP XSS prevention rule 1: HTML-entity-encode
 * untrusted data in element content and quoted attribute values).
 */

/** Markup this module built; the only value `html` does not escape. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** C0 controls but tab, LF and CR, and DEL: matching control characters is this rule's point. */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/**
 * `value` as text safe in element content and in a quoted attribute value. C0 controls but tab,
 * LF and CR, and DEL, are parse errors in HTML (WHATWG HTML §13.2.5; a NUL is dropped or replaced
 * by the parser): each is shown as U+FFFD, so what the page shows is what the bytes were.
 */
function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]!).replace(CONTROLS, '\uFFFD');
}

/** A value as it goes into markup: Html as is, arrays joined, null/undefined/false as nothing. */
function part(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(part).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** Tagged template: `html\`<td>${text}</td>\`` escapes `text`. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i += 1) out += part(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** The pages of the navigation bar, in order. */
const NAV: Array<[string, string]> = [
  ['/workbench', 'Timeline'],
  ['/workbench/episodes', 'Episodes'],
  ['/workbench/why', 'Why'],
  ['/workbench/overview', 'Overview'],
];

/**
 * A whole page: the one stylesheet and the one script of the workbench, both served by the
 * gateway (no CDN, no inline script: the Content-Security-Policy forbids both).
 */
export function layout(title: string, body: Html, who: string): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · World workbench</title>
        <link rel="icon" href="/workbench/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/workbench/assets/workbench.css" />
        <script src="/workbench/assets/workbench.js" defer></script>
      </head>
      <body>
        <header>
          <nav aria-label="World workbench">
            <span class="brand">World</span>${NAV.map(
              ([href, label]) => html` <a href="${href}">${label}</a>`,
            )}
          </nav>
          <span class="who">${who}</span>
        </header>
        <main>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html> `;
}

/** ✓ or ✗ (or - when it could not be checked) with a text alternative for screen readers. */
export function mark(ok: boolean | null): Html {
  if (ok === true) return html`<span class="ok" title="verified">✓</span>`;
  if (ok === false) return html`<span class="bad" title="broken">✗</span>`;
  return html`<span class="unchecked" title="not checkable">-</span>`;
}
