/**
 * A recorded change as lines (jsdiff's `diffLines`, Myers' O(ND) algorithm): removed lines marked
 * `-`, added `+`, unchanged ` `, each escaped. What a write or edit records is only its request
 * (world-spec §3.2, §3.3: a write's new content; an edit's old_text and new_text), never the file
 * before it, so each block says what it shows. Bounded: at most CHANGE_LINES_MAX lines and
 * CHANGE_CHARS_MAX characters are rendered, then a named line says how many more lines the
 * request object (linked) holds — a page with a 400 KB write stays small and fast.
 */
import { diffLines as lineChanges } from 'diff';
import { html, Html } from './html.js';

/** Most lines of a change rendered on a page. */
/** @internal exported for diff.spec.ts */
export const CHANGE_LINES_MAX = 400;
/** Most characters of a change rendered on a page (UTF-16 units). */
export const CHANGE_CHARS_MAX = 64 * 1024;
/** Above this many characters of old + new text an edit is shown as removed then added, undiffed. */
const DIFF_INPUT_MAX = 64 * 1024;

type Line = { sign: '+' | '-' | ' '; text: string };

function linesOf(text: string, sign: Line['sign']): Line[] {
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((t) => ({ sign, text: t }));
}

/** The lines that fit the bounds, and a named line for the rest. */
function block(lines: Line[], caption: Html, rawHref: string): Html {
  const shown: Html[] = [];
  let chars = 0;
  for (const line of lines) {
    if (shown.length >= CHANGE_LINES_MAX || chars + line.text.length > CHANGE_CHARS_MAX) break;
    chars += line.text.length + 1;
    const cls = line.sign === '+' ? 'add' : line.sign === '-' ? 'del' : 'same';
    shown.push(html`<span class="${cls}">${line.sign}${line.text}</span>`);
  }
  const more = lines.length - shown.length;
  // one line of the <pre> per line of the change: nothing but the newline between two lines
  const text = new Html(shown.map((s) => s.text).join('\n'));
  return html`<figure class="diff">
    <figcaption>${caption}</figcaption>
    <pre>${text}</pre>
    ${
      more === 0
        ? ''
        : html`<p class="more">
            … ${more} more line(s) not shown; the whole request:
            <a href="${rawHref}">raw object</a>
          </p>`
    }
  </figure>`;
}

/**
 * A write's new content: the file's earlier content (if any) is not recorded, so this is not
 * shown as a diff from an empty file.
 * @param rawHref the workbench link of the request object holding the whole content
 */
export function writtenContent(content: string, path: string, rawHref: string): Html {
  return block(
    linesOf(content, '+'),
    html`content written to <code>${path}</code>
      <span class="muted"
        >(before content not recorded: the write's request holds only the new content)</span
      >`,
    rawHref,
  );
}

/**
 * An edit's replacement as a diff of its old_text → new_text (the rest of the file is not
 * recorded, and the caption says so).
 * @param rawHref the workbench link of the request object
 */
export function editedText(oldText: string, newText: string, path: string, rawHref: string): Html {
  const lines: Line[] = [];
  if (oldText.length + newText.length > DIFF_INPUT_MAX)
    lines.push(...linesOf(oldText, '-'), ...linesOf(newText, '+'));
  else
    for (const change of lineChanges(oldText, newText))
      lines.push(...linesOf(change.value, change.added ? '+' : change.removed ? '-' : ' '));
  return block(
    lines,
    html`change to <code>${path}</code>
      <span class="muted">(the replaced text only: the rest of the file is not recorded)</span>`,
    rawHref,
  );
}
