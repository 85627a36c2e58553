import type TurndownService from 'turndown';

/** Converts Basecamp rich text (Trix HTML with `<bc-attachment>`s) to Markdown. */
export type HtmlToMarkdown = (html: string | null | undefined) => string;

let loading: Promise<HtmlToMarkdown> | undefined;

/**
 * The converter, built on first use: turndown and its DOM parser load only when a tool first
 * needs Markdown, which keeps the server's start fast.
 */
export function loadHtmlToMarkdown(): Promise<HtmlToMarkdown> {
  loading ??= (async () => {
    const [{ default: Turndown }, { gfm }] = await Promise.all([
      import('turndown'),
      import('@joplin/turndown-plugin-gfm'),
    ]);
    const service = createService(Turndown, gfm);
    return (html) => (html ? tidy(service.turndown(inlineFigures(html))) : '');
  })();
  return loading;
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
  querySelector(selector: string): DomNode | null;
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
      const body = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '\n')
        .replace(/\n/gm, `\n${' '.repeat(prefix.length)}`);
      const next = (node as unknown as { nextSibling: unknown }).nextSibling;
      return `${prefix}${body}${next && !/\n$/.test(body) ? '\n' : ''}`;
    },
  });

  // Trix writes code as a bare <pre> (no <code>); turndown would escape it as prose.
  service.addRule('barePre', {
    filter: (node) => node.nodeName === 'PRE' && !(node as unknown as DomNode).querySelector('code'),
    replacement: (_content, node) => fence(preText(node as unknown as DomNode)),
  });

  service.addRule('bcAttachment', {
    filter: (node) => node.nodeName === 'BC-ATTACHMENT',
    replacement: (_content, node) => attachment(node as unknown as DomNode),
  });

  // A figure outside an attachment: keep its caption as text.
  service.addRule('figcaption', {
    filter: (node) => node.nodeName === 'BC-FIGCAPTION',
    replacement: (content) => (content.trim() ? `\n\n${content.trim()}\n\n` : ''),
  });
  return service;
}

/**
 * Attachments wrap a <figure>, which turndown treats as a block: the spaces around a mention
 * would vanish ("Ask @Victor and" becoming "Ask@Victorand"). Renamed, figures are inline.
 */
function inlineFigures(html: string): string {
  return html.replace(/<(\/?)fig(ure|caption)\b/gi, '<$1bc-fig$2');
}

function attachment(node: DomNode): string {
  const contentType = node.getAttribute('content-type') ?? '';
  const caption = clean(
    node.getAttribute('caption') || node.querySelector('bc-figcaption')?.textContent || '',
  );
  if (contentType === 'application/vnd.basecamp.mention') {
    const name =
      caption || clean(node.querySelector('img')?.getAttribute('alt') ?? '') || clean(node.textContent ?? '');
    return name ? `@${name}` : '';
  }
  const filename = clean(node.getAttribute('filename') ?? '');
  const href = node.getAttribute('href') || node.getAttribute('url') || '';
  if (contentType.startsWith('image/')) {
    const source = node.getAttribute('url') || href || node.querySelector('img')?.getAttribute('src') || '';
    const alt = escapeBrackets(caption || filename || 'image');
    return source ? `![${alt}](${destination(source)})` : alt;
  }
  if (filename || href) {
    const label = escapeBrackets(filename || caption || 'attachment');
    const size = Number(node.getAttribute('filesize'));
    const suffix = Number.isFinite(size) && size > 0 ? ` (${formatBytes(size)})` : '';
    return href ? `[${label}](${destination(href)})${suffix}` : `${label}${suffix}`;
  }
  // Anything else (an embed, a remote image without metadata): its caption or text.
  return escapeBrackets(caption || clean(node.textContent ?? ''));
}

function preText(node: DomNode): string {
  let text = '';
  const walk = (current: DomNode) => {
    for (const child of Array.from(current.childNodes)) {
      if (child.nodeName === 'BR') text += '\n';
      else if (child.nodeType === 3) text += child.nodeValue ?? '';
      else walk(child);
    }
  };
  walk(node);
  return text.replace(/^\n+|\n+$/g, '');
}

function fence(code: string): string {
  const longest = Math.max(2, ...Array.from(code.matchAll(/`+/g), (match) => match[0].length));
  const marker = '`'.repeat(longest + 1);
  return `\n\n${marker}\n${code}\n${marker}\n\n`;
}

function clean(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function escapeBrackets(text: string): string {
  return text.replace(/([[\]])/g, '\\$1');
}

function destination(url: string): string {
  return /[\s()]/.test(url) ? `<${url.replace(/[<>]/g, '')}>` : url;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

const BR_MARK = '\uE000';

/** No runs of blank lines, no trailing spaces, no leading or trailing blank lines. */
function tidy(markdown: string): string {
  return markdown
    .replaceAll(BR_MARK, '')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
