import { ConfigError, PermissionDeniedError } from '@x/mcp-core';

/**
 * The projects a server limited by `projects` (`BASECAMP_PROJECTS`) may use, checked on every
 * request the client sends, before it is sent:
 *
 * - a route that names a project (`/buckets/{id}/...`, `/projects/{id}.json`, `/projects/{id}/...`)
 *   or a query that does (`bucket`, `bucket_id`, `bucket_ids`) is sent only for listed projects;
 * - any other route is account-wide: only the reads below (answered with every record of an
 *   unlisted project taken out, and without `X-Total-Count`, which counted them) and three writes
 *   that touch no project are sent. Flat item routes (`/todos/{id}.json`) do not say which project
 *   the item is in, so they are refused: tools send them as `/buckets/{project}/...` instead.
 *
 * Everything not allowed is refused (PERMISSION_DENIED), so a route added later fails closed.
 */
export class ProjectAllowlist {
  readonly ids: ReadonlySet<number>;

  constructor(ids: Iterable<number>) {
    this.ids = new Set(ids);
  }

  /** "1001, 1002" (or "none"), for messages. */
  get named(): string {
    return this.ids.size === 0 ? 'none' : [...this.ids].join(', ');
  }

  allows(projectId: number): boolean {
    return this.ids.has(projectId);
  }

  /**
   * Throws PERMISSION_DENIED unless the request may be sent. `path` is below the account
   * (`/todos/1.json`) or an absolute URL (a `Link` header's next page). Returns whether the answer
   * is account-wide (to go through `filter`).
   */
  check(
    method: string,
    path: string,
    query: Record<string, string | number | boolean | undefined> = {},
  ): { accountWide: boolean } {
    const url = new URL(path, 'http://basecamp.invalid');
    // A Link URL carries the account first; a relative path starts below it.
    const route = /^https?:\/\//i.test(path) ? url.pathname.replace(/^\/\d+(?=\/)/, '') : url.pathname;
    if (route !== path.replace(/^https?:\/\/[^/]+\/\d+/i, '').replace(/[?#].*$/, '')) {
      // `..`, `//` or escapes: the URL that would be sent is not the one asked for.
      throw this.#refused(`${method} ${path.slice(0, 120)} is not a plain route`);
    }
    const named = [
      ...[...url.searchParams.entries()].filter(([key]) => BUCKET_QUERY.has(key)).map(([, value]) => value),
      ...Object.entries(query)
        .filter(([key, value]) => BUCKET_QUERY.has(key) && value !== undefined)
        .map(([, value]) => String(value)),
    ];
    for (const value of named) {
      for (const part of value.split(',')) {
        const id = Number(part.trim());
        if (!Number.isSafeInteger(id) || !this.ids.has(id)) throw this.#outside(part.trim());
      }
    }
    const project = /^\/(?:buckets|projects)\/(\d+)(?:\/|\.json$)/.exec(route);
    if (project) {
      if (!this.ids.has(Number(project[1]))) throw this.#outside(project[1] as string);
      return { accountWide: false };
    }
    const allowed = method === 'GET' ? ACCOUNT_READS : (ACCOUNT_WRITES[method] ?? []);
    if (allowed.some((pattern) => pattern.test(route))) return { accountWide: true };
    throw this.#refused(`${method} ${route} does not name a project`);
  }

  /**
   * An account-wide answer without the records of unlisted projects: every array entry that
   * refers anywhere inside it to an unlisted project (a `bucket` with its `id`, or a `*url` field
   * with `/buckets/{id}` or `/projects/{id}`) is left out, at any depth; in `/projects.json` only
   * listed projects stay. An answer still referring to one after that is refused.
   */
  filter<T>(path: string, data: T): T {
    const route = new URL(path, 'http://basecamp.invalid').pathname.replace(/^\/\d+(?=\/)/, '');
    const projectList = route === '/projects.json';
    const walk = (value: unknown, top: boolean): unknown => {
      if (Array.isArray(value)) {
        return value
          .filter((entry) => {
            if (projectList && top) {
              const id = (entry as { id?: unknown } | null)?.id;
              if (typeof id !== 'number' || !this.ids.has(id)) return false;
            }
            return !this.#refersElsewhere(entry);
          })
          .map((entry) => walk(entry, false));
      }
      if (typeof value !== 'object' || value === null) return value;
      return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, walk(entry, false)]));
    };
    const kept = walk(data, true) as T;
    if (this.#refersElsewhere(kept))
      throw this.#refused(`GET ${route} answered with another project's record`);
    return kept;
  }

  /** Whether a record names an unlisted project anywhere inside it. */
  #refersElsewhere(value: unknown): boolean {
    if (Array.isArray(value)) return value.some((entry) => this.#refersElsewhere(entry));
    if (typeof value !== 'object' || value === null) return false;
    for (const [key, entry] of Object.entries(value)) {
      if (key === 'bucket' && typeof entry === 'object' && entry !== null) {
        const id = (entry as { id?: unknown }).id;
        if (typeof id !== 'number' || !this.ids.has(id)) return true;
      } else if (typeof entry === 'string' && key.endsWith('url')) {
        for (const match of entry.matchAll(/\/(?:buckets|projects)\/(\d+)(?=[/.?#]|$)/g)) {
          if (!this.ids.has(Number(match[1]))) return true;
        }
      } else if (this.#refersElsewhere(entry)) return true;
    }
    return false;
  }

  #outside(project: string) {
    return new PermissionDeniedError(
      `Basecamp project ${project.slice(0, 20)} is not one this server may use. Its projects: ${this.named}.`,
      { details: { allowed_projects: [...this.ids] } },
    );
  }

  #refused(what: string) {
    return new PermissionDeniedError(
      `This server is limited to Basecamp projects ${this.named}, and ${what}: give the tool a project_id of those projects.`,
      { details: { allowed_projects: [...this.ids] } },
    );
  }
}

/** Query parameters that name projects (recordings, search, the gauges report). */
const BUCKET_QUERY = new Set(['bucket', 'bucket_id', 'bucket_ids']);

/**
 * Account-wide reads a limited server still sends: lists whose records carry their project
 * (filtered), and things about people, the caller and the account that belong to no project.
 */
const ACCOUNT_READS: readonly RegExp[] = [
  /^\/projects\.json$/,
  /^\/projects\/recordings\.json$/,
  /^\/search\.json$/,
  /^\/searches\/metadata\.json$/,
  /^\/chats\.json$/,
  /^\/reports\/[a-z_/]+(?:\/\d+)?\.json$/,
  /^\/my\/(?:assignments(?:\/completed|\/due)?|readings|question_reminders|profile|preferences)\.json$/,
  /^\/people\.json$/,
  /^\/people\/\d+\.json$/,
  /^\/circles\/people\.json$/,
  /^\/categories\.json$/,
  /^\/account\.json$/,
];

/** Account-wide writes that change no project: a file to attach, the caller's own profile. */
const ACCOUNT_WRITES: Readonly<Record<string, readonly RegExp[]>> = {
  POST: [/^\/attachments\.json$/],
  PUT: [/^\/my\/(?:profile|preferences)\.json$/],
};

/** `BASECAMP_PROJECTS` ("1001, 1002") or the `projects` setting, validated. */
export function parseProjects(
  value: readonly number[] | undefined,
  variable: string | undefined,
): ProjectAllowlist | undefined {
  if (value !== undefined) {
    const bad = value.find((entry) => !Number.isSafeInteger(entry) || entry <= 0);
    if (bad !== undefined) {
      throw new ConfigError(`projects must be Basecamp project IDs (positive integers), got ${String(bad)}.`);
    }
    return new ProjectAllowlist(value);
  }
  if (variable === undefined || variable.trim() === '') return undefined;
  const parts = variable.split(',').map((part) => part.trim());
  const bad = parts.find(
    (part) => !/^\d{1,16}$/.test(part) || !Number.isSafeInteger(Number(part)) || Number(part) <= 0,
  );
  if (bad !== undefined) {
    throw new ConfigError(
      `BASECAMP_PROJECTS must be project IDs separated by commas (the numbers in https://3.basecamp.com/<account>/projects/<id>), got "${bad.slice(0, 40)}".`,
    );
  }
  return new ProjectAllowlist(parts.map(Number));
}
