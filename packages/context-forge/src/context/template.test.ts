import { describe, expect, it } from 'vitest';
import { renderTemplate, type TemplateData } from './template.js';

/**
 * The desktop app's template processor as the app writes it: three regular-expression replaces
 * in turn. Our renderer must give the same text for every input; it only must not backtrack.
 */
function appRender(template: string, data: TemplateData): string {
  const values: Record<string, unknown> = { ...data };
  const slice = typeof data.slice === 'string' ? /^(\d+)-slice\.(.+)$/.exec(data.slice) : null;
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
  const lookup = (name: string) => {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    return value === undefined || value === null ? undefined : String(value);
  };
  return template
    .replace(
      /\{\{#if\s+(\w+)\}\}(.*?)\{\{else\}\}(.*?)\{\{\/if\}\}/gs,
      (_m, name: string, yes: string, no: string) => (Object.hasOwn(data, name) && data[name] ? yes : no),
    )
    .replace(/\{\{(\w+)\}\}/g, (_m, name: string) => lookup(name) ?? '')
    .replace(/\{([^}]+)\}/g, (_m, expression: string) => {
      if (expression.includes(' | ')) return lookup(expression.split(' | ')[0]?.trim() ?? '') ?? expression;
      return lookup(expression === 'project' ? 'projectName' : expression) ?? expression;
    });
}

const data: TemplateData = {
  projectName: 'harbor',
  slice: '140-slice.rate-limits',
  isMonorepo: false,
  on: true,
  developmentPhase: 'P6',
  taskFile: 't.md',
  projectDate: '2026-11-22',
  braces: '{project} and {{on}} and {x',
  empty: '',
};

// Pieces that make the three expressions interact: headers (valid and broken), branches, names.
const PIECES = [
  '{{#if on}}',
  '{{#if isMonorepo}}',
  '{{#if missing}}',
  '{{#if\ton}}',
  '{{#if\u00a0on}}',
  '{{#if on }}',
  '{{#ifon}}',
  '{{#if }}',
  '{{else}}',
  '{{/if}}',
  '{{else}',
  '{{/if}',
  '{{',
  '}}',
  '{',
  '}',
  '{}',
  '{{}}',
  '{{projectName}}',
  '{{braces}}',
  '{{nothing}}',
  '{project}',
  '{slice | feature}',
  '{nothing | feature}',
  '{sliceindex}',
  '{development-phase}',
  'on',
  'x',
  ' ',
  '\n',
  '|',
  ' | ',
  '#if',
  '\u2028',
];

/** A small deterministic generator, so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('renderTemplate gives the app’s text', () => {
  it('on 20,000 generated templates mixing conditionals, placeholders and stray braces', () => {
    for (let seed = 1; seed <= 20_000; seed++) {
      const next = random(seed);
      const length = 1 + Math.floor(next() * 24);
      let template = '';
      for (let i = 0; i < length; i++) template += PIECES[Math.floor(next() * PIECES.length)];
      const expected = appRender(template, data);
      const actual = renderTemplate(template, data);
      if (actual !== expected)
        expect({ seed, template, actual }).toEqual({ seed, template, actual: expected });
    }
  });

  it('reads `\\s` and `\\w` in the if header exactly as the expression does, for every UTF-16 unit', () => {
    const differing: number[] = [];
    for (let code = 0; code < 0x10000; code++) {
      const char = String.fromCharCode(code);
      for (const template of [`{{#if${char}on}}a{{else}}b{{/if}}`, `{{#if on${char}}}a{{else}}b{{/if}}`]) {
        if (renderTemplate(template, data) !== appRender(template, data)) differing.push(code);
      }
      const double = `{{a${char}}}`;
      if (renderTemplate(double, { a: 1, [`a${char}`]: 2 }) !== appRender(double, { a: 1, [`a${char}`]: 2 }))
        differing.push(code);
    }
    expect(differing).toEqual([]);
  });
});

// Each of these took the app's expressions (and our renderer before the change) well over the
// 10 s limit below: cubic backtracking over 50,000 characters (the most project_update stores in
// one note), quadratic over 200,000 (a prompt file, or a note the app or an editor wrote). A
// linear scan takes milliseconds. No timing is asserted; the limit catches a renderer that
// backtracks again.
describe('renderTemplate stays linear on hostile notes', () => {
  const LIMIT = { timeout: 10_000 };
  const fill = (unit: string, length = 50_000) => unit.repeat(Math.floor(length / unit.length));

  it('conditionals without an end: `{{#if a}}x{{else}}y` repeated', LIMIT, () => {
    const unit = '{{#if a}}x{{else}}y';
    // No conditional closes; `{{else}}` is an unknown name (dropped), `{{#if a}` an unknown `{...}`.
    expect(appRender(unit.repeat(3), { a: true })).toBe('{#if a}xy'.repeat(3));
    expect(renderTemplate(fill(unit), { a: true })).toBe(
      '{#if a}xy'.repeat(Math.floor(50_000 / unit.length)),
    );
  });

  it('a run of `{` without a `}`', LIMIT, () => {
    const note = fill('{', 200_000);
    expect(renderTemplate(note, data)).toBe(note);
  });

  it('`{{name` repeated without a closing `}}`', LIMIT, () => {
    const note = fill('{{a', 200_000);
    expect(renderTemplate(note, { a: 'b' })).toBe(note);
  });

  it('many complete conditionals, each replaced', LIMIT, () => {
    const unit = '{{#if on}}y{{else}}n{{/if}}';
    expect(renderTemplate(fill(unit), data)).toBe('y'.repeat(Math.floor(50_000 / unit.length)));
  });
});
