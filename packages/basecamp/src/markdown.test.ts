import { describe, expect, it } from 'vitest';
import { excerpt } from './markdown/excerpt.js';
import { gfmOf, loadHtmlToMarkdown, MAX_HTML_CHARS } from './markdown/html-to-markdown.js';
import { markdownToHtml } from './markdown/markdown-to-html.js';
import { GALLERY_MESSAGE_HTML, RICH_MESSAGE_HTML } from './testing/fixtures.js';

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

  it('finds the CommonJS GFM plugin as Node loads it and as a bundled chunk exposes it', async () => {
    const native = await import('@joplin/turndown-plugin-gfm');
    expect(gfmOf(native)).toBe(native.gfm);
    // esbuild's chunk of a CommonJS module in an ES module bundle: only `default`, module.exports.
    const bundled = { default: { gfm: native.gfm, tables: native.tables } };
    expect(gfmOf(bundled)).toBe(native.gfm);
    expect(() => gfmOf({ default: {} })).toThrow(/no gfm export/);
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

describe('attachments keep the text around them as written', () => {
  it('renders mentions in a row, a mention before "!", a captioned image and a gallery', async () => {
    const toMarkdown = await loadHtmlToMarkdown();
    expect(toMarkdown(GALLERY_MESSAGE_HTML)).toBe(
      [
        'Thanks @Victor!',
        '',
        'Reviewers: @Sharon @Annie @Steve',
        '',
        '![The front, in silver](https://3.basecampapi.com/999999999/blobs/img001/previews/full)',
        '',
        '![left.jpg](https://3.basecampapi.com/999999999/blobs/img002/previews/full) ![Right side](https://3.basecampapi.com/999999999/blobs/img003/previews/full)',
      ].join('\n'),
    );
  });

  it('writes a mention inside code as its name', async () => {
    const toMarkdown = await loadHtmlToMarkdown();
    const html =
      '<pre>ping <bc-attachment content-type="application/vnd.basecamp.mention"><figure><figcaption>Annie</figcaption></figure></bc-attachment><br>done</pre>';
    expect(toMarkdown(html)).toBe('```\nping @Annie\ndone\n```');
  });
});

describe('escaping only what would change the meaning', () => {
  it('leaves prose alone and escapes Markdown syntax', async () => {
    const toMarkdown = await loadHtmlToMarkdown();
    expect(toMarkdown('<div>call snake_case_name, 2 * 3, C# and [draft] cost ~20 at 5:30 &lt;3</div>')).toBe(
      'call snake_case_name, 2 * 3, C# and [draft] cost ~20 at 5:30 <3',
    );
    expect(
      toMarkdown('<div>not *bold*, not _em_, not ~~gone~~, not [a](b), not &lt;b&gt;, not &amp;amp;</div>'),
    ).toBe('not \\*bold\\*, not \\_em\\_, not \\~\\~gone\\~\\~, not [a\\](b), not \\<b>, not \\&amp;');
    expect(toMarkdown('<div># not a heading</div><div>1. not a list</div><div>- nor this</div>')).toBe(
      '\\# not a heading\n\n1\\. not a list\n\n\\- nor this',
    );
  });
});

describe('Markdown → Basecamp HTML → Markdown', () => {
  const constructs: Record<string, string> = {
    paragraphs:
      'First paragraph with **bold**, _italic_ and ~~strike~~.\nA second line.\n\nAnother paragraph.',
    links: 'See [the brief](https://example.com/brief_v2) and [mail](mailto:ann@example.com).',
    headings: '# Launch plan\n\nSome text.\n\n# Next steps',
    'nested lists': '- one\n  - one.a\n  - one.b\n    - deeper\n- two',
    'numbered lists inside bullets': '- Prepare\n  1. write\n  2. review\n- Ship\n  1. tag\n  2. deploy',
    'bullets inside numbered lists': '1. First\n   - detail\n   - more\n2. Second',
    'code blocks': 'Run this:\n\n```\nconst a = x_y * 2;\nif (a < b) { go(); }\n```\n\nThen `npm test`.',
    'code with backticks': '````\nuse ```fences``` inside\n````',
    tables:
      '| Market | Units | Notes      |\n| ------ | ----: | :--------- |\n| US     | 1200  | **strong** |\n| EU     | 800   |            |',
    quotes: '> Keep it short.\n> Really.',
    'snake case and arithmetic': 'call ship_it_now, 2 * 3 = 6, C# rocks',
  };

  for (const [name, markdown] of Object.entries(constructs)) {
    it(`keeps ${name}`, async () => {
      const toMarkdown = await loadHtmlToMarkdown();
      const html = await markdownToHtml(markdown);
      expect(html).not.toMatch(/<(?!\/?(div|h1|br|strong|em|strike|a|pre|ol|ul|li|blockquote)\b)[a-z]/i);
      expect(toMarkdown(html)).toBe(markdown);
    });
  }

  it('writes nested and mixed lists as nested HTML lists, not flattened text', async () => {
    expect(await markdownToHtml('- a\n  1. b\n  2. c\n- d')).toBe(
      '<ul><li>a<ol><li>b</li><li>c</li></ol></li><li>d</li></ul>',
    );
  });

  it("writes every heading level as Basecamp's one heading and a table as aligned text", async () => {
    expect(await markdownToHtml('## Sub\n\n| a | b |\n|---|---|\n| 1 | 22 |')).toBe(
      '<h1>Sub</h1><pre>| a   | b   |\n| --- | --- |\n| 1   | 22  |</pre>',
    );
  });

  it('never writes a link Basecamp would not keep', async () => {
    expect(await markdownToHtml('[x](javascript:alert(1)) <b>hi</b> ![pic](https://example.com/p.png)')).toBe(
      '<div>[x](javascript:alert(1)) &lt;b&gt;hi&lt;/b&gt; <a href="https://example.com/p.png">pic</a></div>',
    );
  });
});

describe('excerpts cut at a Markdown boundary', () => {
  it('never cuts inside a link or image, and says it cut', () => {
    const text = `${'word '.repeat(60)}![banner](https://example.com/images/banner-final.png) and [the brief](https://example.com/brief) end`;
    for (let max = 40; max < text.length; max += 7) {
      const { text: cut, truncated } = excerpt(text, max);
      expect(truncated).toBe(true);
      expect(cut.length).toBeLessThanOrEqual(max);
      expect(cut.endsWith('…')).toBe(true);
      // Every opened link or image is complete.
      expect(cut.replace(/!?\[[^\]]*\]\([^)]*\)/g, '')).not.toMatch(/[[\]()]/);
    }
  });

  it('never cuts inside a code span and closes open emphasis', () => {
    const code = excerpt(`${'a '.repeat(30)}\`some code here\` tail`, 70);
    expect(code.text).toBe(`${'a '.repeat(30).trimEnd()}…`);
    const bold = excerpt(`**${'bold '.repeat(30)}** after`, 60);
    expect(bold.text).toMatch(/^\*\*(bold )+bold\*\*…$/);
    const nested = excerpt(`_x **${'y '.repeat(40)}** z_`, 50);
    expect(nested.text).toMatch(/^_x \*\*(y )+y\*\*_…$/);
  });

  it('closes a fenced block it has to cut', () => {
    const cut = excerpt(`Intro\n\n\`\`\`\n${'line of code\n'.repeat(20)}\`\`\``, 120);
    expect(cut.text).toMatch(/^Intro\n\n```\n(line of code\n)+```\n…$/);
  });

  it('leaves short text alone', () => {
    expect(excerpt('short', 10)).toEqual({ text: 'short', truncated: false });
  });
});

// Each input below blocked or crashed the earlier converters (quadratic regexes, a spread of every
// backtick run): a `<pre>` of 300,000 spaces took minutes, 150,000 backtick runs overflowed the
// stack, 100,000 "**a ~~b " took minutes to write as HTML. They must now finish within the
// test's time limit with the right answer; timings are in bench/, not here.
describe('hostile input', () => {
  it('converts a <pre> of 300,000 spaces', async () => {
    const toMarkdown = await loadHtmlToMarkdown();
    const markdown = toMarkdown(`<pre>${' '.repeat(300_000)}x</pre><div>after</div>`);
    expect(markdown).toBe(`\`\`\`\n${' '.repeat(300_000)}x\n\`\`\`\n\nafter`);
  });

  it('fences a <pre> holding 150,000 backtick runs without overflowing the stack', async () => {
    const toMarkdown = await loadHtmlToMarkdown();
    const markdown = toMarkdown(`<pre>${'`` '.repeat(150_000)}x</pre>`);
    expect(markdown.startsWith('```\n`` ')).toBe(true);
    expect(markdown.endsWith('x\n```')).toBe(true);
  });

  it('converts deep nesting, unclosed attachments, runs of spaces and line breaks', async () => {
    const toMarkdown = await loadHtmlToMarkdown();
    expect(toMarkdown(`${'<div>'.repeat(40_000)}deep${'</div>'.repeat(40_000)}`)).toBe('deep');
    expect(toMarkdown(`${'<bc-attachment content-type="x">'.repeat(15_000)}end`)).toBe('end');
    expect(toMarkdown(`<div>a${'&#8195;'.repeat(60_000)}b</div>`)).toBe(`a${'\u2003'.repeat(32)}b`);
    expect(toMarkdown(`<div>a${'&nbsp;'.repeat(40_000)}</div><code>${' '.repeat(100_000)}c</code>`)).toBe(
      `a${'\u00a0'.repeat(32)}\n\n\`c\``,
    );
  });

  it('writes Markdown with 400,000 characters of unmatched emphasis as HTML', async () => {
    const html = await markdownToHtml('**a ~~b '.repeat(50_000));
    expect(html.startsWith('<div>**a ~~b **a')).toBe(true);
    expect(html.length).toBeGreaterThan(400_000);
  });

  it('converts only the first 500,000 characters of a huge body, and says so', async () => {
    const toMarkdown = await loadHtmlToMarkdown();
    const html = `<div>${'word '.repeat(300_000)}</div>`;
    const markdown = toMarkdown(html);
    expect(markdown.length).toBeLessThan(MAX_HTML_CHARS + 200);
    expect(markdown).toMatch(
      /\[… truncated: this body is 1,500,011 characters of HTML; only the first 500,000 were converted\. Open it in Basecamp for the rest\.\]$/,
    );
  });
});
