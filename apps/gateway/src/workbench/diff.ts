/**
 * A change as a line diff (jsdiff's `diffLines`, Myers' O(ND) algorithm): removed lines marked
 * `-`, added `+`, unchanged ` `, each escaped.
 */
import { diffLines as lineChanges } from 'diff';
import { html, type Html } from './html.js';

/** The diff of `before` → `after` for `path`, as a <pre> block with one span per line. */
export function diffLines(before: string, after: string, path: string): Html {
  const lines: Html[] = [];
  for (const change of lineChanges(before, after)) {
    const sign = change.added ? '+' : change.removed ? '-' : ' ';
    const cls = change.added ? 'add' : change.removed ? 'del' : 'same';
    for (const line of change.value.replace(/\n$/, '').split('\n'))
      lines.push(html`<span class="${cls}">${sign}${line}</span> `);
  }
  return html`<figure class="diff">
    <figcaption>change to <code>${path}</code></figcaption>
    <pre>${lines}</pre>
  </figure>`;
}
