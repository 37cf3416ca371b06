import { CHANGE_LINES_MAX, editedText, writtenContent } from './diff.js';

/** A block's caption as text (tags dropped, white space squashed). */
const caption = (text: string) =>
  /<figcaption>([\s\S]*?)<\/figcaption>/
    .exec(text)![1]!
    .replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
const spans = (text: string) =>
  [...text.matchAll(/<span class="(add|del|same)">([^<]*)<\/span>/g)].map((m) => m[2]);

describe('workbench change blocks', () => {
  it('shows a write as its new content and says the before content is not recorded', () => {
    const text = writtenContent('after\n', 'w2.txt', '/workbench/objects/sha256:ab').text;
    expect(spans(text)).toEqual(['+after']);
    expect(caption(text)).toBe(
      "content written to w2.txt (before content not recorded: the write's request holds only the new content)",
    );
    expect(text).not.toContain('more line(s) not shown');
  });

  it('shows an edit as the replaced text and says the rest of the file is not recorded', () => {
    const text = editedText('line two\n', 'line 2\n', 'notes.txt', '/r').text;
    expect(spans(text)).toEqual(['-line two', '+line 2']);
    // as preformatted text: one line each, nothing between them but the newline
    expect(/<pre>([\s\S]*)<\/pre>/.exec(text)![1]).toBe(
      '<span class="del">-line two</span>\n<span class="add">+line 2</span>',
    );
    expect(caption(text)).toBe(
      'change to notes.txt (the replaced text only: the rest of the file is not recorded)',
    );
  });

  it('renders at most CHANGE_LINES_MAX lines of a 20,000-line write and names the rest', () => {
    const content = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n');
    const text = writtenContent(content, 'big.txt', '/workbench/objects/sha256:cd').text;
    expect(CHANGE_LINES_MAX).toBe(400);
    expect(spans(text)).toHaveLength(400);
    expect(spans(text)[399]).toBe('+line 399');
    expect(text.replace(/\s+/g, ' ')).toContain(
      '… 19600 more line(s) not shown; the whole request: <a href="/workbench/objects/sha256:cd">raw object</a>',
    );
    expect(text.length).toBeLessThan(20_000);
  });

  it('cuts a change at 64 KiB of text even when it has few lines', () => {
    const text = writtenContent(`${'x'.repeat(70_000)}\nend\n`, 'wide.txt', '/r').text;
    expect(spans(text)).toEqual([]);
    expect(text).toContain('… 2 more line(s) not shown');
  });
});
