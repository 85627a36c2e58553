/**
 * The app's small template language, reproduced so our context text matches the app's:
 * - `{{#if name}}yes{{else}}no{{/if}}` picks by the truthiness of `name`;
 * - `{{name}}` becomes the value, or nothing when `name` is unknown;
 * - `{name}` becomes the value, or `name` (without braces) when unknown; `{a | b}` uses `a`;
 *   `{project}` means `projectName`;
 * - derived names: `sliceindex` / `slicename` from a slice like `140-slice.auth`, and the aliases
 *   `development-phase`, `task-file`, `project-date`, `projectdate`.
 */
export type TemplateData = Readonly<Record<string, unknown>>;

const CONDITIONAL = /\{\{#if\s+(\w+)\}\}(.*?)\{\{else\}\}(.*?)\{\{\/if\}\}/gs;
const DOUBLE = /\{\{(\w+)\}\}/g;
const SINGLE = /\{([^}]+)\}/g;
const SLICE = /^(\d+)-slice\.(.+)$/;

export function renderTemplate(template: string, data: TemplateData): string {
  const withConditionals = template.replace(CONDITIONAL, (_match, name: string, yes: string, no: string) =>
    Object.hasOwn(data, name) && data[name] ? yes : no,
  );
  const values = withDerivedValues(data);
  const lookup = (name: string): string | undefined => {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    return value === undefined || value === null ? undefined : String(value);
  };
  return withConditionals
    .replace(DOUBLE, (_match, name: string) => lookup(name) ?? '')
    .replace(SINGLE, (_match, expression: string) => {
      if (expression.includes(' | ')) {
        const primary = expression.split(' | ')[0]?.trim() ?? '';
        return lookup(primary) ?? expression;
      }
      return lookup(expression === 'project' ? 'projectName' : expression) ?? expression;
    });
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
