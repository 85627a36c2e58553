import type TurndownService from 'turndown';
import { longestRun } from './markdown-to-html.js';

export interface HtmlToMarkdownOptions {
  /**
   * Convert at most this many characters of HTML (default and ceiling: `MAX_HTML_CHARS`). A longer
   * body is cut at a tag boundary first, and the Markdown ends with a note saying so.
   */
  maxInputChars?: number;
}

/** Converts Basecamp rich text (Trix HTML with `<bc-attachment>`s) to Markdown. */
export type HtmlToMarkdown = (html: string | null | undefined, options?: HtmlToMarkdownOptions) => string;

/** The most HTML one conversion reads (about 0.2 s of work for rich text like the fixtures); anything longer is cut first. */
export const MAX_HTML_CHARS = 500_000;

let loading: Promise<HtmlToMarkdown> | undefined;

/**
 * The converter, built on first use: turndown and its DOM parser load only when a tool first
 * needs Markdown, which keeps the server's start fast.
 *
 * Everything here runs in linear time on hostile input (anyone who can post in an account can
 * put any HTML in a body): attachments and `<pre>` blocks are rendered by a single scan before
 * turndown sees the document and come back as placeholders, so no long run of whitespace or
 * backticks ever reaches turndown's own trailing-whitespace regex; text escaping, tidying and
 * fence lengths are loops, not backtracking regexes.
 */
export function loadHtmlToMarkdown(): Promise<HtmlToMarkdown> {
  loading ??= (async () => {
    const [{ default: Turndown }, plugin] = await Promise.all([
      import('turndown'),
      import('@joplin/turndown-plugin-gfm'),
    ]);
    const service = createService(Turndown, gfmOf(plugin));
    return (html, options = {}) => (html ? convert(service, html, options) : '');
  })();
  return loading;
}

/**
 * The GFM plugin out of its module, however it was loaded. The plugin is CommonJS: Node's
 * `import()` exposes its `exports.gfm` as a named export, but a bundler that puts it in a chunk of
 * an ES module bundle (esbuild, as in `x-mcp-server`'s bin) exposes only `module.exports`, as
 * `default`. Reading only the named export broke every Markdown conversion in such a bundle.
 */
export function gfmOf(module: object): TurndownService.Plugin {
  const named = (module as { gfm?: unknown }).gfm;
  const viaDefault = (module as { default?: { gfm?: unknown } }).default?.gfm;
  const gfm = typeof named === 'function' ? named : viaDefault;
  if (typeof gfm !== 'function') {
    throw new Error('@joplin/turndown-plugin-gfm has no gfm export: an unsupported version or build.');
  }
  return gfm as TurndownService.Plugin;
}

function convert(service: TurndownService, input: string, options: HtmlToMarkdownOptions): string {
  const limit = Math.max(1, Math.min(options.maxInputChars ?? MAX_HTML_CHARS, MAX_HTML_CHARS));
  const html = input.length > limit ? input.slice(0, tagBoundary(input, limit)) : input;
  const note =
    html.length < input.length
      ? `\n\n[… truncated: this body is ${input.length.toLocaleString('en-US')} characters of HTML; only the first ${html.length.toLocaleString('en-US')} were converted. Open it in Basecamp for the rest.]`
      : '';
  const blocks: string[] = [];
  const prepared = limitDepth(extractBlocks(html.replace(PLACEHOLDER_CHARS, ''), blocks));
  let markdown: string;
  try {
    markdown = service.turndown(prepared);
  } catch (error) {
    // A document nested deeper than the call stack: its text is still worth reading.
    if (!(error instanceof RangeError)) throw error;
    markdown = escapeMarkdown(collapseWhitespace(htmlToText(prepared)));
  }
  return `${restoreBlocks(tidy(markdown), blocks)}${note}`;
}

/** Where to cut HTML at or before `limit` without splitting a tag or an entity. */
function tagBoundary(html: string, limit: number): number {
  const open = html.lastIndexOf('<', limit - 1);
  const close = html.lastIndexOf('>', limit - 1);
  let cut = open > close ? open : limit;
  const entity = html.lastIndexOf('&', cut - 1);
  if (entity !== -1 && cut - entity <= 32 && !html.slice(entity, cut).includes(';')) cut = entity;
  return cut;
}

/** The few DOM members the rules use (the package builds without DOM types; turndown supplies the DOM). */
interface DomNode {
  nodeName: string;
  nodeType: number;
  nodeValue: string | null;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
  parentNode: DomNode | null;
  getAttribute(name: string): string | null;
}

type TurndownConstructor = new (options?: TurndownService.Options) => TurndownService;

function createService(Turndown: TurndownConstructor, gfm: TurndownService.Plugin): TurndownService {
  const service = new Turndown({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    strongDelimiter: '**',
    // A Trix line break is a line break, not Markdown's two-trailing-spaces hard break.
    br: '',
  });
  service.use(gfm);
  service.remove(['script', 'style', 'head', 'title']);
  // Escape only what would change the Markdown's meaning (turndown escapes every _ and *).
  service.escape = escapeMarkdown;

  // Later rules win in turndown, so these override the GFM plugin's where they overlap.
  service.addRule('strike', {
    filter: ['del', 's', 'strike'],
    replacement: (content) => (content.trim() ? `~~${content}~~` : content),
  });

  // Trix separates paragraphs with <br><br>; turndown merges adjacent newlines into one, so each
  // <br> leaves a marker that tidy() removes, keeping the blank line.
  service.addRule('lineBreak', {
    filter: 'br',
    replacement: () => `${BR_MARK}\n`,
  });

  // "- item" and "1. item", not turndown's "-   item".
  service.addRule('listItem', {
    filter: 'li',
    replacement: (content, node, options) => {
      const parent = node.parentNode as unknown as DomNode | null;
      let prefix = `${options.bulletListMarker} `;
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? '1') || 1;
        const siblings = Array.from(parent.childNodes).filter((child) => child.nodeName === 'LI');
        prefix = `${start + siblings.indexOf(node as unknown as DomNode)}. `;
      }
      const body = trimNewlines(content).replaceAll('\n', `\n${' '.repeat(prefix.length)}`);
      const next = (node as unknown as { nextSibling: unknown }).nextSibling;
      return `${prefix}${body}${next ? '\n' : ''}`;
    },
  });

  // Every <pre> was rendered before parsing (extractBlocks); it holds only its placeholder.
  service.addRule('preBlock', {
    filter: 'pre',
    replacement: (_content, node) => `\n\n${(node as unknown as DomNode).textContent ?? ''}\n\n`,
  });

  // Inline code: a fence longer than any backtick run inside, counted in one pass.
  service.addRule('inlineCode', {
    filter: (node) => node.nodeName === 'CODE' && node.parentNode?.nodeName !== 'PRE',
    replacement: (content) => {
      const code = collapseWhitespace(content.replace(/[\r\n]/g, ' '));
      if (!code.trim()) return code;
      const fence = '`'.repeat(longestRun(code, '`') + 1);
      const pad = code.startsWith('`') || code.endsWith('`') ? ' ' : '';
      return `${fence}${pad}${code}${pad}${fence}`;
    },
  });

  service.addRule('link', {
    filter: (node) => node.nodeName === 'A' && Boolean((node as unknown as DomNode).getAttribute('href')),
    replacement: (content, node) => {
      const href = (node as unknown as DomNode).getAttribute('href') ?? '';
      const label = content.trim() || escapeBrackets(href);
      return `[${label}](${destination(href)})`;
    },
  });

  service.addRule('image', {
    filter: 'img',
    replacement: (_content, node) => {
      const element = node as unknown as DomNode;
      const source = element.getAttribute('src') ?? '';
      const alt = escapeBrackets(collapseWhitespace(element.getAttribute('alt') ?? '').trim());
      return source ? `![${alt}](${destination(source)})` : alt;
    },
  });

  return service;
}

// --- attachments and <pre>, rendered before parsing ---

const BR_MARK = '\uE000';
/** Inline placeholder of a rendered attachment: U+E001 index U+E001. */
const INLINE_MARK = '\uE001';
/** Block placeholder of a rendered <pre>: U+E002 index U+E002. */
const BLOCK_MARK = '\uE002';
const PLACEHOLDER_CHARS = /[\uE000-\uE002]/g;

/**
 * Renders every `<bc-attachment>` and `<pre>` to Markdown in one left-to-right scan and leaves a
 * placeholder in its place. An attachment becomes opaque inline text, so the whitespace inside
 * its `<figure>` cannot leak out and the text around it stays exactly as written ("Thanks
 * @Victor!", "@Victor @Mark"). A `<pre>` becomes a fenced block (or a table, when it holds one).
 */
function extractBlocks(html: string, blocks: string[], attachmentsOnly = false): string {
  const opener = attachmentsOnly ? /<(bc-attachment)(?=[\s>/])/gi : /<(bc-attachment|pre)(?=[\s>/])/gi;
  let output = '';
  let position = 0;
  // Once a closing tag is not found, none will be found further on: never search again.
  const unclosed = new Set<string>();
  for (;;) {
    opener.lastIndex = position;
    const match = opener.exec(html);
    if (!match) break;
    const tagEnd = html.indexOf('>', match.index);
    if (tagEnd === -1) break;
    const name = (match[1] ?? '').toLowerCase();
    const closer = name === 'pre' ? /<\/pre\s*>/gi : /<\/bc-attachment\s*>/gi;
    closer.lastIndex = tagEnd + 1;
    const close = html[tagEnd - 1] === '/' || unclosed.has(name) ? null : closer.exec(html);
    if (!close) unclosed.add(name);
    const innerEnd = close ? close.index : name === 'pre' ? html.length : tagEnd + 1;
    const end = close ? close.index + close[0].length : innerEnd;
    const openTag = html.slice(match.index, tagEnd + 1);
    const inner = html.slice(tagEnd + 1, innerEnd);
    output += html.slice(position, match.index);
    if (name === 'pre') {
      blocks.push(preBlock(inner));
      output += `<pre>${BLOCK_MARK}${blocks.length - 1}${BLOCK_MARK}</pre>`;
    } else {
      blocks.push(attachment(attributes(openTag), inner));
      output += `${INLINE_MARK}${blocks.length - 1}${INLINE_MARK}`;
    }
    position = end;
  }
  return output + html.slice(position);
}

/** Deepest element nesting handed to turndown; Basecamp's rich text is a few levels deep. */
const MAX_DEPTH = 48;
const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/**
 * Drops the tags of elements nested deeper than `MAX_DEPTH` (their text stays), in one pass.
 * turndown's work grows with depth × size, so 60,000 nested `<div>`s would take minutes.
 */
function limitDepth(html: string): string {
  let output = '';
  let position = 0;
  let depth = 0;
  // Per open element: whether its tags were kept.
  const kept: boolean[] = [];
  for (;;) {
    const open = html.indexOf('<', position);
    if (open === -1) break;
    const close = html.indexOf('>', open);
    if (close === -1) break;
    const name = /^<(\/?)([a-zA-Z][\w-]*)/.exec(html.slice(open, Math.min(close + 1, open + 64)));
    if (!name) {
      output += html.slice(position, close + 1);
      position = close + 1;
      continue;
    }
    const closing = name[1] === '/';
    const element = (name[2] ?? '').toLowerCase();
    let keep = true;
    if (closing) {
      if (kept.length > 0) {
        keep = kept.pop() as boolean;
        if (keep) depth--;
      }
    } else if (!VOID_ELEMENTS.has(element) && html[close - 1] !== '/') {
      keep = depth < MAX_DEPTH;
      kept.push(keep);
      if (keep) depth++;
    }
    output += keep ? html.slice(position, close + 1) : html.slice(position, open);
    position = close + 1;
  }
  return output + html.slice(position);
}

function restoreBlocks(markdown: string, blocks: string[]): string {
  return markdown
    .replace(/\uE001(\d+)\uE001/g, (_match, index: string) => blocks[Number(index)] ?? '')
    .replace(/\uE002(\d+)\uE002/g, (_match, index: string, offset: number, text: string) => {
      // Inside a list item the block's lines take the item's indentation.
      const lineStart = text.lastIndexOf('\n', offset) + 1;
      const indent = ' '.repeat(offset - lineStart);
      return (blocks[Number(index)] ?? '').replaceAll('\n', `\n${indent}`);
    });
}

function attributes(tag: string): Map<string, string> {
  const found = new Map<string, string>();
  // Real attachment tags are a few hundred characters; a huge one is not worth reading.
  if (tag.length > 20_000) return found;
  const pattern = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;
  // Skip the tag name.
  pattern.lastIndex = tag.search(/[\s/>]/) === -1 ? tag.length : tag.search(/[\s/>]/);
  for (let match = pattern.exec(tag); match; match = pattern.exec(tag)) {
    const name = (match[1] ?? '').toLowerCase();
    if (!found.has(name)) found.set(name, decodeEntities(match[2] ?? match[3] ?? match[4] ?? ''));
  }
  return found;
}

/** The attributes of the first `<tag>` in `html`, if any. */
function firstTag(html: string, tag: string): Map<string, string> | undefined {
  const match = new RegExp(`<${tag}(?=[\\s>/])`, 'i').exec(html);
  if (!match) return undefined;
  const end = html.indexOf('>', match.index);
  return attributes(html.slice(match.index, end === -1 ? html.length : end + 1));
}

/** The text of the first `<tag>…</tag>` in `html`. */
function firstText(html: string, tag: string): string {
  const open = new RegExp(`<${tag}(?=[\\s>/])`, 'i').exec(html);
  if (!open) return '';
  const start = html.indexOf('>', open.index);
  if (start === -1) return '';
  const close = new RegExp(`</${tag}\\s*>`, 'ig');
  close.lastIndex = start + 1;
  const end = close.exec(html);
  return htmlToText(html.slice(start + 1, end ? end.index : html.length));
}

function attachment(attrs: Map<string, string>, inner: string): string {
  const contentType = attrs.get('content-type') ?? '';
  const caption = clean(attrs.get('caption') || firstText(inner, 'figcaption'));
  const image = firstTag(inner, 'img');
  if (contentType === 'application/vnd.basecamp.mention') {
    const name = caption || clean(image?.get('alt') ?? '') || clean(htmlToText(inner));
    return name ? `@${name}` : '';
  }
  const filename = clean(attrs.get('filename') ?? '');
  const href = attrs.get('href') || attrs.get('url') || '';
  if (contentType.startsWith('image/')) {
    const source = attrs.get('url') || href || image?.get('src') || '';
    const alt = escapeBrackets(caption || filename || 'image');
    return source ? `![${alt}](${destination(source)})` : alt;
  }
  if (filename || href) {
    const label = escapeBrackets(filename || caption || 'attachment');
    const size = Number(attrs.get('filesize'));
    const suffix = Number.isFinite(size) && size > 0 ? ` (${formatBytes(size)})` : '';
    return href ? `[${label}](${destination(href)})${suffix}` : `${label}${suffix}`;
  }
  // Anything else (an embed, a remote image without metadata): its caption or text.
  return escapeBrackets(caption || clean(htmlToText(inner)));
}

/** A `<pre>`'s text as a fenced block, or as a table when it holds exactly a GFM table. */
function preBlock(inner: string): string {
  const nested: string[] = [];
  // Mentions and files inside code are written as their rendering.
  const withAttachments = extractBlocks(inner, nested, true).replace(
    /\uE001(\d+)\uE001/g,
    (_match, index: string) =>
      (nested[Number(index)] ?? '').replace(/[<&]/g, (character) => (character === '<' ? '&lt;' : '&amp;')),
  );
  const code = trimNewlines(htmlToText(withAttachments, true));
  if (isTable(code)) return code;
  const fence = '`'.repeat(Math.max(3, longestRun(code, '`') + 1));
  return `${fence}\n${code}\n${fence}`;
}

function isTable(text: string): boolean {
  const lines = text.split('\n');
  if (lines.length < 2 || lines.length > 10_000) return false;
  const row = (line: string) => line.startsWith('|') && line.endsWith('|') && line.length > 1;
  return lines.every(row) && /^\|(\s*:?-+:?\s*\|)+$/.test(lines[1] ?? '');
}

/**
 * HTML to plain text in one pass: tags dropped (`<br>` and block ends as newlines when
 * `keepLines`), entities decoded. Used for captions, code and the fallback.
 */
function htmlToText(html: string, keepLines = false): string {
  let text = '';
  let index = 0;
  while (index < html.length) {
    const open = html.indexOf('<', index);
    if (open === -1) {
      text += html.slice(index);
      break;
    }
    text += html.slice(index, open);
    const close = html.indexOf('>', open);
    if (close === -1) break;
    if (keepLines) {
      const tag = html.slice(open + 1, Math.min(close, open + 12)).toLowerCase();
      if (/^br\b|^br$/.test(tag) || /^\/(div|p|li|h1)\b/.test(tag)) text += '\n';
    }
    index = close + 1;
  }
  return decodeEntities(text);
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z][a-z0-9]{1,30});/gi, (entity, body: string) => {
    if (body[0] !== '#') return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
    const code =
      body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
      ? String.fromCodePoint(code)
      : entity;
  });
}

// --- escaping ---

const PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
const isSpace = (character: string | undefined) => character === undefined || /\s/.test(character);
const isWord = (character: string | undefined) => character !== undefined && /[\p{L}\p{N}]/u.test(character);

/**
 * Escapes a text node so it reads as itself in Markdown, and nothing more: `snake_case_name`,
 * `2 * 3`, `C#` and `[draft]` stay as they are; `*light*`, `_word_`, `~~x~~`, `[a](b)`, `<tag>`,
 * `&amp;` and a leading `# `, `> `, `- `, `1. ` are escaped. Backticks are left alone: Basecamp has
 * no inline code, so people write them to mean code. Runs of whitespace are capped at 32.
 */
export function escapeMarkdown(text: string): string {
  let output = '';
  let spaces = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index] as string;
    if (/\s/.test(character)) {
      if (++spaces <= 32) output += character;
      continue;
    }
    spaces = 0;
    const previous = text[index - 1];
    const next = text[index + 1];
    let escaped = false;
    switch (character) {
      case '\\':
        escaped = next === undefined || PUNCTUATION.has(next);
        break;
      case '*':
        escaped = !(isSpace(previous) && isSpace(next) && previous !== undefined && next !== undefined);
        break;
      case '_':
        escaped = !(
          (isWord(previous) && isWord(next)) ||
          (previous !== undefined && next !== undefined && isSpace(previous) && isSpace(next))
        );
        break;
      case '~':
        escaped = next === '~' || previous === '~';
        break;
      case ']':
        escaped = next === '(' || next === '[' || next === ':';
        break;
      case '<':
        escaped = next !== undefined && /[A-Za-z/!?]/.test(next);
        break;
      case '&':
        escaped = /^&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z][a-z0-9]{1,30});/i.test(text.slice(index, index + 40));
        break;
    }
    output += escaped ? `\\${character}` : character;
  }
  return escapeLineStart(output);
}

/** A text node that starts a line could start a block: a heading, quote, list or rule. */
function escapeLineStart(text: string): string {
  const match = /^(\s*)(.*)$/s.exec(text);
  const indent = match?.[1] ?? '';
  const rest = match?.[2] ?? '';
  if (/^#{1,6}(\s|$)/.test(rest) || /^>/.test(rest) || /^[-+](\s|$)/.test(rest)) return `${indent}\\${rest}`;
  if (rest.length > 0 && rest.length <= 200 && /^(=+|-+|(?:[-*_]\s*){3,})\s*$/.test(rest))
    return `${indent}\\${rest}`;
  if (/^(`{3,}|~{3,})/.test(rest)) return `${indent}\\${rest}`;
  const ordered = /^(\d{1,9})([.)])(\s|$)/.exec(rest);
  if (ordered) return `${indent}${ordered[1]}\\${rest.slice((ordered[1] ?? '').length)}`;
  return text;
}

function escapeBrackets(text: string): string {
  return text.replace(/([[\]])/g, '\\$1');
}

// --- small helpers, all linear ---

function clean(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Whitespace runs of at most 32 characters (no content needs more; regexes stay cheap). */
function collapseWhitespace(text: string): string {
  return text.replace(/\s{33,}/g, (run) => run.slice(0, 32));
}

function trimNewlines(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === '\n') start++;
  while (end > start && text[end - 1] === '\n') end--;
  return text.slice(start, end);
}

function destination(url: string): string {
  const compact = url.trim().replace(/\s/g, (space) => encodeURIComponent(space));
  return /[()<>]/.test(compact) ? `<${compact.replace(/[<>]/g, '')}>` : compact;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** No runs of blank lines, no trailing spaces, no leading or trailing blank lines. One pass. */
function tidy(markdown: string): string {
  const lines = markdown.replaceAll(BR_MARK, '').split('\n');
  const kept: string[] = [];
  let blank = 0;
  for (const line of lines) {
    let end = line.length;
    while (end > 0 && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
    const trimmed = line.slice(0, end);
    if (trimmed === '') {
      blank++;
      if (blank <= 1 && kept.length > 0) kept.push('');
      continue;
    }
    blank = 0;
    kept.push(trimmed);
  }
  while (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
  return kept.join('\n').trim();
}
