import type { Token } from 'markdown-it';

/** Converts Markdown (or plain text) an agent writes to Basecamp rich-text HTML. */
export type MarkdownToHtml = (markdown: string) => string;

let loading: Promise<MarkdownToHtml> | undefined;

/**
 * The converter, built on first use (markdown-it loads only when a tool first writes rich text).
 *
 * Markdown is parsed by markdown-it (CommonMark plus GFM tables and strikethrough; raw HTML is
 * text, never markup) and rendered with only the tags Basecamp's rich text keeps: `div`, `h1`,
 * `br`, `strong`, `em`, `strike`, `a href`, `pre`, `ol`, `ul`, `li`, `blockquote`. Nested and
 * mixed lists stay nested; every heading level becomes `h1` (the only one Basecamp has); a fenced
 * or indented code block becomes `pre`; a table becomes a `pre` of aligned `| a | b |` rows (the
 * reader turns such a `pre` back into a table); inline code keeps its backticks; an image becomes
 * a link to it. markdown-it parses in linear time, and its nesting is capped at 100 levels.
 */
export function loadMarkdownToHtml(): Promise<MarkdownToHtml> {
  loading ??= (async () => {
    const { default: MarkdownItConstructor } = await import('markdown-it');
    const parser = new MarkdownItConstructor('default', { html: false, linkify: false, breaks: true });
    return (markdown) => render(parser.parse(markdown.replace(/\r\n?/g, '\n'), {}));
  })();
  return loading;
}

/** One-off conversion (loads the parser on first use). */
export async function markdownToHtml(markdown: string): Promise<string> {
  return (await loadMarkdownToHtml())(markdown);
}

/** Block containers whose paragraphs are written inline (Basecamp has no `div` in a list item or quote). */
const INLINE_PARAGRAPHS = new Set(['list_item_open', 'blockquote_open']);

function render(tokens: Token[]): string {
  let html = '';
  // The opening token of each open container, to know how paragraphs inside it are written.
  const containers: string[] = [];
  // Whether the current container already holds a paragraph (the next one is set off by <br><br>).
  const hasParagraph: boolean[] = [];
  const inlineParagraphs = () => INLINE_PARAGRAPHS.has(containers.at(-1) ?? '');

  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as Token;
    switch (token.type) {
      case 'paragraph_open':
        if (inlineParagraphs()) {
          if (hasParagraph[hasParagraph.length - 1]) html += '<br><br>';
          hasParagraph[hasParagraph.length - 1] = true;
        } else html += '<div>';
        break;
      case 'paragraph_close':
        if (!inlineParagraphs()) html += '</div>';
        break;
      case 'heading_open':
        html += '<h1>';
        break;
      case 'heading_close':
        html += '</h1>';
        break;
      case 'bullet_list_open':
        html += '<ul>';
        break;
      case 'bullet_list_close':
        html += '</ul>';
        break;
      case 'ordered_list_open':
        html += '<ol>';
        break;
      case 'ordered_list_close':
        html += '</ol>';
        break;
      case 'list_item_open':
      case 'blockquote_open':
        html += token.type === 'list_item_open' ? '<li>' : '<blockquote>';
        containers.push(token.type);
        hasParagraph.push(false);
        break;
      case 'list_item_close':
      case 'blockquote_close':
        html += token.type === 'list_item_close' ? '</li>' : '</blockquote>';
        containers.pop();
        hasParagraph.pop();
        break;
      case 'fence':
      case 'code_block':
        html += `<pre>${escapeHtml(token.content.replace(/\n$/, ''))}</pre>`;
        break;
      case 'hr':
        html += '<div>---</div>';
        break;
      case 'table_open': {
        const end = tokens.findIndex((candidate, at) => at > index && candidate.type === 'table_close');
        const stop = end === -1 ? tokens.length : end;
        html += `<pre>${escapeHtml(tableText(tokens.slice(index, stop)))}</pre>`;
        index = stop;
        break;
      }
      case 'inline':
        html += renderInline(token.children ?? []);
        break;
      default:
        // Anything else markdown-it may emit (html_block is off) is written as its text.
        if (token.content) html += escapeHtml(token.content);
    }
  }
  return html;
}

function renderInline(tokens: Token[]): string {
  let html = '';
  // Links that are not http(s) or mailto are written as their label only.
  const openLinks: boolean[] = [];
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
        html += escapeHtml(token.content);
        break;
      case 'softbreak':
      case 'hardbreak':
        html += '<br>';
        break;
      case 'strong_open':
        html += '<strong>';
        break;
      case 'strong_close':
        html += '</strong>';
        break;
      case 'em_open':
        html += '<em>';
        break;
      case 'em_close':
        html += '</em>';
        break;
      case 's_open':
        html += '<strike>';
        break;
      case 's_close':
        html += '</strike>';
        break;
      case 'code_inline':
        // Basecamp has no inline code: the backticks stay, so the reader sees code.
        html += escapeHtml(codeSpan(token.content));
        break;
      case 'link_open': {
        const href = safeHref(attribute(token, 'href'));
        openLinks.push(href !== undefined);
        if (href !== undefined) html += `<a href="${escapeHtml(href)}">`;
        break;
      }
      case 'link_close':
        if (openLinks.pop()) html += '</a>';
        break;
      case 'image': {
        const source = safeHref(attribute(token, 'src'));
        const label = escapeHtml(token.content || attribute(token, 'src') || 'image');
        html += source === undefined ? label : `<a href="${escapeHtml(source)}">${label}</a>`;
        break;
      }
      default:
        if (token.content) html += escapeHtml(token.content);
    }
  }
  return html;
}

function attribute(token: Token, name: string): string | null {
  const value = token.attrGet(name);
  return value === null ? null : String(value);
}

function safeHref(href: string | null): string | undefined {
  if (!href) return undefined;
  return /^(https?:\/\/|mailto:)/i.test(href) ? href : undefined;
}

/** Inline code as Markdown source again: a fence longer than any backtick run inside. */
function codeSpan(code: string): string {
  const fence = '`'.repeat(longestRun(code, '`') + 1);
  const pad = code.startsWith('`') || code.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${code}${pad}${fence}`;
}

/** The longest run of `character` in `text`, counted in one pass. */
export function longestRun(text: string, character: string): number {
  let longest = 0;
  let current = 0;
  for (let index = 0; index < text.length; index++) {
    if (text[index] === character) {
      current++;
      if (current > longest) longest = current;
    } else current = 0;
  }
  return longest;
}

/**
 * A GFM table as aligned Markdown rows (Basecamp has no table tag; a `pre` keeps the columns
 * lined up). Cells are their Markdown source.
 */
function tableText(tokens: Token[]): string {
  const rows: string[][] = [];
  const aligns: string[] = [];
  let row: string[] | undefined;
  let header = true;
  for (const token of tokens) {
    if (token.type === 'tr_open') row = [];
    else if (token.type === 'tr_close' && row) {
      rows.push(row);
      row = undefined;
    } else if (token.type === 'tbody_open') header = false;
    else if ((token.type === 'th_open' || token.type === 'td_open') && header) {
      const style = String(token.attrGet('style') ?? '');
      aligns.push(
        /center/.test(style) ? 'center' : /right/.test(style) ? 'right' : /left/.test(style) ? 'left' : '',
      );
    } else if (token.type === 'inline' && row) row.push(token.content.trim());
  }
  // Loops, not Math.max(...rows): a long table must not overflow the stack.
  let columns = aligns.length;
  for (const cells of rows) columns = Math.max(columns, cells.length);
  const widths = Array.from({ length: columns }, () => 3);
  for (const cells of rows)
    cells.forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 3, cell.length);
    });
  const line = (cells: string[]) =>
    `| ${widths.map((width, column) => (cells[column] ?? '').padEnd(width)).join(' | ')} |`;
  const delimiter = `| ${widths
    .map((width, column) => {
      const align = aligns[column] ?? '';
      const dashes = '-'.repeat(width - (align === 'center' ? 2 : align ? 1 : 0));
      return align === 'center'
        ? `:${dashes}:`
        : align === 'left'
          ? `:${dashes}`
          : align === 'right'
            ? `${dashes}:`
            : dashes;
    })
    .join(' | ')} |`;
  const [head = [], ...body] = rows;
  return [line(head), delimiter, ...body.map(line)].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
