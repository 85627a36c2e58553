import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The account-stripped OpenAPI document of the bc3 API that `@37signals/basecamp` ships. A
// devDependency, read by the coverage table, the tool-size report and the contract test only:
// nothing at run time depends on it.
const FILE = fileURLToPath(
  new URL('../../node_modules/@37signals/basecamp/dist/generated/openapi-stripped.json', import.meta.url),
);

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Record<string, unknown>;
}

export interface Operation {
  id: string;
  method: string;
  /** The path template, e.g. `/todos/{todoId}`. */
  path: string;
  tag: string;
  summary: string;
  parameters: OpenApiParameter[];
  /** The JSON body schema (`$ref`s into `components`), when the operation takes one. */
  body: Record<string, unknown> | undefined;
  bodyRequired: boolean;
  /** The media type of the body when it is not JSON (`application/octet-stream`, `multipart/form-data`). */
  fileBody: string | undefined;
}

export interface OpenApiDocument {
  version: string;
  operations: Operation[];
  components: Record<string, unknown>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function loadOpenApi(): OpenApiDocument {
  const raw = JSON.parse(readFileSync(FILE, 'utf8')) as {
    info: { version: string };
    paths: Record<string, Record<string, Record<string, unknown>>>;
    components: Record<string, unknown>;
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(raw.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as
        | {
            operationId: string;
            tags?: string[];
            description?: string;
            parameters?: OpenApiParameter[];
            requestBody?: {
              required?: boolean;
              content?: Record<string, { schema?: Record<string, unknown> }>;
            };
          }
        | undefined;
      if (!operation) continue;
      operations.push({
        id: operation.operationId,
        method: method.toUpperCase(),
        path,
        tag: operation.tags?.[0] ?? 'Untagged',
        summary: (operation.description ?? '').split('\n')[0] ?? '',
        parameters: [
          ...((item.parameters as unknown as OpenApiParameter[]) ?? []),
          ...(operation.parameters ?? []),
        ],
        body: operation.requestBody?.content?.['application/json']?.schema,
        bodyRequired: operation.requestBody?.required ?? false,
        fileBody: Object.keys(operation.requestBody?.content ?? {}).find(
          (type) => type !== 'application/json',
        ),
      });
    }
  }
  return { version: raw.info.version, operations, components: raw.components };
}

/**
 * The operation a request reaches: the method and the path below the account, with a project
 * prefix (`/buckets/{id}`, which Basecamp still answers) and the `.json` suffix set aside, since
 * the document writes most item routes without it.
 */
export function matchOperation(
  document: OpenApiDocument,
  method: string,
  path: string,
): Operation | undefined {
  const bare = path.replace(/^\/buckets\/\d+(?=\/)/, '');
  const candidates = document.operations.filter((operation) => operation.method === method);
  // A few routes are documented with their project prefix (webhooks): those match as sent.
  const matches = (template: string, actual: string) =>
    new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(actual);
  // Exact templates first, so `/todolists/1/todos.json` is ListTodos, not `/todolists/{id}`.
  for (const target of [path, bare, bare.replace(/\.json$/, '')]) {
    const found = candidates.find((operation) => matches(operation.path, target));
    if (found) return found;
  }
  return undefined;
}
