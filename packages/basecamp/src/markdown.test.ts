import { describe, expect, it } from 'vitest';
import { loadHtmlToMarkdown } from './markdown/html-to-markdown.js';
import { markdownToHtml } from './markdown/markdown-to-html.js';
import { RICH_MESSAGE_HTML } from './testing/fixtures.js';

describe('Basecamp rich text to Markdown', () => {
  it('turns the rich message into clean Markdown without any HTML', async () => {
    const toMarkdown = await loadHtmlToMarkdown();
    const markdown = toMarkdown(RICH_MESSAGE_HTML);
    expect(markdown).not.toMatch(/<[a-z/]/i);
    expect(markdown).toContain(
      '**Launch plan** for the _Leto_ laptop. @Sharon owns the shots, @Annie the copy.',
    );
    // <br><br> is a paragraph break in Trix and stays one.
    expect(markdown).toContain('@Annie the copy.\n\nOld date: ~~March 1~~ now March 15.');
    expect(markdown).toContain('# Assets');
    expect(markdown).toContain(
      '![Laptop, front](https://3.basecampapi.com/999999999/blobs/abc123/previews/full)',
    );
    expect(markdown).toContain(
      '[spec sheet.pdf](https://3.basecamp-static.com/999999999/blobs/def456/download/spec%20sheet.pdf) (242 KB)',
    );
    expect(markdown).toContain('- Shots by Friday\n- Copy by _Monday_');
    expect(markdown).toContain('1. Review\n2. Ship');
    expect(markdown).toContain('> Make it feel \\*light\\*.');
    // A bare <pre> becomes a fenced block, unescaped, with its <br> as line breaks.
    expect(markdown).toContain(
      '```\nconst launch = new Date("2026-03-15");\nif (launch < today) { ship_it(); }\n```',
    );
    expect(markdown).toMatch(/\| Market \| Units \|\n\| -+ \| -+ \|\n\| US +\| 1200 +\|/);
  });

  it('keeps the spaces around a mention and falls back to the avatar alt text', async () => {
    const toMarkdown = await loadHtmlToMarkdown();
    const html =
      '<div>Ask<bc-attachment content-type="application/vnd.basecamp.mention"><figure><img alt="Victor Cooper" src="x"></figure></bc-attachment> and <bc-attachment content-type="application/vnd.basecamp.mention"><figure><figcaption>Annie</figcaption></figure></bc-attachment>, thanks</div>';
    expect(toMarkdown(html)).toBe('Ask@Victor Cooper and @Annie, thanks');
  });

  it('uses a longer fence when the code itself contains backticks', async () => {
    const toMarkdown = await loadHtmlToMarkdown();
    expect(toMarkdown('<pre>run ```x```</pre>')).toBe('````\nrun ```x```\n````');
  });

  it('converts a table without a header row and <details> instead of leaving HTML', async () => {
    const toMarkdown = await loadHtmlToMarkdown();
    const table = toMarkdown('<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>');
    expect(table).toMatch(/^\| +\| +\|\n\| --- \| --- \|\n\| a +\| b +\|\n\| 1 +\| 2 +\|$/);
    expect(toMarkdown('<details><summary>More</summary><p>Hidden</p></details><p>Para</p>')).toBe(
      'More\n\nHidden\n\nPara',
    );
  });

  it('answers an empty string for missing bodies', async () => {
    const toMarkdown = await loadHtmlToMarkdown();
    expect(toMarkdown(null)).toBe('');
    expect(toMarkdown('')).toBe('');
  });
});

describe('Markdown to Basecamp rich text', () => {
  it('writes only the tags Basecamp allows, escaping everything typed', async () => {
    const html = await markdownToHtml(
      '# Plan\n\nHello **team**, _see_ [the doc](https://example.com/a_b) and ~~old~~.\nSecond line <script>\n\n- one\n- two\n\n1. first\n2. second\n\n> quoted\n\n```\nif (a < b) {}\n```',
    );
    expect(html).toBe(
      '<h1>Plan</h1><div>Hello <strong>team</strong>, <em>see</em> <a href="https://example.com/a_b">the doc</a> and <strike>old</strike>.<br>Second line &lt;script&gt;</div><ul><li>one</li><li>two</li></ul><ol><li>first</li><li>second</li></ol><blockquote>quoted</blockquote><pre>if (a &lt; b) {}</pre>',
    );
  });

  it('leaves snake_case words alone', async () => {
    expect(await markdownToHtml('call ship_it_now today')).toBe('<div>call ship_it_now today</div>');
  });
});
