/**
 * Markdown (or plain text) an agent writes, as the HTML Basecamp's rich text accepts: `div`,
 * `h1`, `br`, `strong`, `em`, `strike`, `a`, `pre`, `ol`, `ul`, `li`, `blockquote`. Everything
 * is escaped first, so no tag the agent typed reaches Basecamp unintended.
 */
export function markdownToHtml(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: string[] = [];
  let paragraph: string[] = [];
  let list: { kind: 'ul' | 'ol'; items: string[] } | undefined;
  let quote: string[] = [];

  const flushParagraph = () => {
    if (paragraph.length > 0) blocks.push(`<div>${paragraph.map(inline).join('<br>')}</div>`);
    paragraph = [];
  };
  const flushList = () => {
    if (list)
      blocks.push(
        `<${list.kind}>${list.items.map((item) => `<li>${inline(item)}</li>`).join('')}</${list.kind}>`,
      );
    list = undefined;
  };
  const flushQuote = () => {
    if (quote.length > 0) blocks.push(`<blockquote>${quote.map(inline).join('<br>')}</blockquote>`);
    quote = [];
  };
  const flushAll = () => {
    flushParagraph();
    flushList();
    flushQuote();
  };

  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const fence = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence?.[1]) {
      flushAll();
      const marker = fence[1];
      const code: string[] = [];
      index++;
      while (index < lines.length && !(lines[index] ?? '').trim().startsWith(marker)) {
        code.push(lines[index] ?? '');
        index++;
      }
      blocks.push(`<pre>${escapeHtml(code.join('\n'))}</pre>`);
      continue;
    }
    if (line.trim() === '') {
      flushAll();
      continue;
    }
    const heading = /^\s*#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      flushAll();
      blocks.push(`<h1>${inline((heading[1] ?? '').replace(/\s+#+\s*$/, ''))}</h1>`);
      continue;
    }
    const quoted = /^\s*>\s?(.*)$/.exec(line);
    if (quoted) {
      flushParagraph();
      flushList();
      quote.push(quoted[1] ?? '');
      continue;
    }
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    if (bullet || numbered) {
      flushParagraph();
      flushQuote();
      const kind = bullet ? 'ul' : 'ol';
      if (list && list.kind !== kind) flushList();
      list ??= { kind, items: [] };
      list.items.push((bullet ?? numbered)?.[1] ?? '');
      continue;
    }
    if (list && /^\s{2,}\S/.test(line)) {
      // A continuation line of the last item.
      const last = list.items.length - 1;
      list.items[last] = `${list.items[last] ?? ''} ${line.trim()}`;
      continue;
    }
    flushList();
    flushQuote();
    paragraph.push(line);
  }
  flushAll();
  return blocks.join('');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function inline(text: string): string {
  let html = escapeHtml(text);
  const links: string[] = [];
  // Links first, parked as placeholders so their URLs are not touched by the emphasis rules.
  html = html.replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, (_match, label: string, url: string) => {
    links.push(`<a href="${url}">${emphasis(label)}</a>`);
    return `\u0000${links.length - 1}\u0000`;
  });
  html = emphasis(html);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the placeholders set above
  return html.replace(/\u0000(\d+)\u0000/g, (_match, index: string) => links[Number(index)] ?? '');
}

function emphasis(html: string): string {
  return html
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^\w])__(?=\S)(.+?)(?<=\S)__(?!\w)/g, '$1<strong>$2</strong>')
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '<strike>$1</strike>')
    .replace(/(^|[^*\w])\*(?=\S)([^*]+?)(?<=\S)\*(?!\*)/g, '$1<em>$2</em>')
    .replace(/(^|[^\w])_(?=\S)([^_]+?)(?<=\S)_(?!\w)/g, '$1<em>$2</em>');
}
