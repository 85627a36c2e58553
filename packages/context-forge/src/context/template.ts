/**
 * The app's small template language, reproduced so our context text matches the app's:
 * - `{{#if name}}yes{{else}}no{{/if}}` picks by the truthiness of `name`;
 * - `{{name}}` becomes the value, or nothing when `name` is unknown;
 * - `{name}` becomes the value, or `name` (without braces) when unknown; `{a | b}` uses `a`;
 *   `{project}` means `projectName`;
 * - derived names: `sliceindex` / `slicename` from a slice like `140-slice.auth`, and the aliases
 *   `development-phase`, `task-file`, `project-date`, `projectdate`.
 *
 * The app runs three regular expressions in turn (conditionals, then `{{name}}`, then `{name}`).
 * Those backtrack: the conditional one is cubic in the length of a text full of `{{#if a}}` and
 * `{{else}}` without `{{/if}}`, and the single-brace one quadratic in a run of `{`, so one stored
 * note could block the server for many seconds. Each pass below is a single left-to-right scan
 * that yields exactly what the app's expression yields (`test/template.test.ts` checks it against
 * the expressions on generated texts), in time linear in the text.
 */
import { isRegExpSpace, isWordChar, nextIndexOf } from './scan.js';

export type TemplateData = Readonly<Record<string, unknown>>;

const SLICE = /^(\d+)-slice\.(.+)$/;

export function renderTemplate(template: string, data: TemplateData): string {
  const withConditionals = replaceConditionals(template, (name) =>
    Boolean(Object.hasOwn(data, name) && data[name]),
  );
  const values = withDerivedValues(data);
  const lookup = (name: string): string | undefined => {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    return value === undefined || value === null ? undefined : String(value);
  };
  const withDoubles = replaceDoubles(withConditionals, (name) => lookup(name) ?? '');
  return replaceSingles(withDoubles, (expression) => {
    if (expression.includes(' | ')) {
      const primary = expression.split(' | ')[0]?.trim() ?? '';
      return lookup(primary) ?? expression;
    }
    return lookup(expression === 'project' ? 'projectName' : expression) ?? expression;
  });
}

const IF_OPEN = '{{#if';
const ELSE = '{{else}}';
const END_IF = '{{/if}}';

/**
 * The app's `/\{\{#if\s+(\w+)\}\}(.*?)\{\{else\}\}(.*?)\{\{\/if\}\}/gs` replace. At a header, the
 * lazy groups settle on the first `{{else}}` after the header and the first `{{/if}}` after that
 * `{{else}}`: a later `{{else}}` could only close with a `{{/if}}` the first one also reaches. When
 * either is missing no later header can match either, so the scan stops.
 */
function replaceConditionals(text: string, isTrue: (name: string) => boolean): string {
  if (!text.includes(IF_OPEN)) return text;
  const nextElse = nextIndexOf(text, ELSE);
  const nextEndIf = nextIndexOf(text, END_IF);
  let out = '';
  let copied = 0;
  let from = 0;
  for (;;) {
    const start = text.indexOf(IF_OPEN, from);
    if (start < 0) break;
    const header = readIfHeader(text, start + IF_OPEN.length);
    if (!header) {
      from = start + 1;
      continue;
    }
    const elseAt = nextElse(header.end);
    if (elseAt < 0) break;
    const endIfAt = nextEndIf(elseAt + ELSE.length);
    if (endIfAt < 0) break;
    out += text.slice(copied, start);
    out += isTrue(header.name) ? text.slice(header.end, elseAt) : text.slice(elseAt + ELSE.length, endIfAt);
    copied = from = endIfAt + END_IF.length;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** `\s+(\w+)\}\}` at `at`: the variable name and where the header ends, or undefined. */
function readIfHeader(text: string, at: number): { name: string; end: number } | undefined {
  let position = at;
  while (position < text.length && isRegExpSpace(text.charCodeAt(position))) position++;
  if (position === at) return undefined;
  const nameStart = position;
  while (position < text.length && isWordChar(text.charCodeAt(position))) position++;
  if (position === nameStart || !text.startsWith('}}', position)) return undefined;
  return { name: text.slice(nameStart, position), end: position + 2 };
}

/** The app's `/\{\{(\w+)\}\}/g` replace. */
function replaceDoubles(text: string, replace: (name: string) => string): string {
  let out = '';
  let copied = 0;
  let from = 0;
  for (;;) {
    const start = text.indexOf('{{', from);
    if (start < 0) break;
    let position = start + 2;
    while (position < text.length && isWordChar(text.charCodeAt(position))) position++;
    if (position > start + 2 && text.startsWith('}}', position)) {
      out += text.slice(copied, start) + replace(text.slice(start + 2, position));
      copied = from = position + 2;
    } else {
      from = start + 1;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * The app's `/\{([^}]+)\}/g` replace: from a `{`, everything up to the next `}` (which may hold
 * more `{`), at least one character. A `{` with no `}` after it ends the scan.
 */
function replaceSingles(text: string, replace: (expression: string) => string): string {
  const nextClose = nextIndexOf(text, '}');
  let out = '';
  let copied = 0;
  let from = 0;
  for (;;) {
    const start = text.indexOf('{', from);
    if (start < 0) break;
    const close = nextClose(start + 1);
    if (close < 0) break;
    if (close === start + 1) {
      from = start + 1; // `{}`: nothing between the braces
      continue;
    }
    out += text.slice(copied, start) + replace(text.slice(start + 1, close));
    copied = from = close + 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function withDerivedValues(data: TemplateData): Record<string, unknown> {
  const values: Record<string, unknown> = { ...data };
  const slice = typeof data.slice === 'string' ? SLICE.exec(data.slice) : null;
  if (slice) {
    values.sliceindex = slice[1];
    values.slicename = slice[2];
  }
  if (data.developmentPhase) values['development-phase'] = data.developmentPhase;
  if (data.taskFile) values['task-file'] = data.taskFile;
  if (data.projectDate) {
    values['project-date'] = data.projectDate;
    values.projectdate = data.projectDate;
  }
  return values;
}
