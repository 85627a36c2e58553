import { Ajv } from 'ajv';
import type { RecordedRequest } from '../testing/fake-basecamp.js';
import { matchOperation, type OpenApiDocument } from './document.js';

/**
 * Query parameters the bc3 API docs (basecamp/bc3-api `sections/*.md`) document for an operation
 * but the OpenAPI document leaves out. Only these are allowed beyond the document's own.
 */
const DOCUMENTED_QUERY: Readonly<Record<string, readonly string[]>> = {
  // sections/search.md: type, bucket_id, creator_id, file_type, exclude_chat, page, per_page.
  Search: ['type', 'bucket_id', 'creator_id', 'file_type', 'exclude_chat', 'page', 'per_page'],
};

/** Checks recorded requests against the OpenAPI document; returns one line per violation. */
export function createContractChecker(document: OpenApiDocument) {
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi.json', components: document.components });
  const schemas = document.components.schemas as Record<string, Record<string, unknown>>;
  const resolve = (schema: Record<string, unknown>) => {
    const ref = schema.$ref;
    return typeof ref === 'string' ? (schemas[ref.replace('#/components/schemas/', '')] ?? {}) : schema;
  };

  return (
    request: RecordedRequest,
    accountId: string,
  ): { operation: string | undefined; problems: string[] } => {
    const path = request.path.slice(accountId.length + 1);
    const operation = matchOperation(document, request.method, path);
    const where = `${request.method} ${path}`;
    if (!operation)
      return { operation: undefined, problems: [`${where}: no operation of the OpenAPI document`] };
    const problems: string[] = [];
    const declared = operation.parameters.filter((parameter) => parameter.in === 'query');
    const allowed = new Set([
      ...declared.map((parameter) => parameter.name),
      ...(DOCUMENTED_QUERY[operation.id] ?? []),
    ]);
    // Pagination: Basecamp's own `Link` URLs carry `page`, which clients follow as given.
    allowed.add('page');
    for (const name of Object.keys(request.query)) {
      if (!allowed.has(name))
        problems.push(`${where} (${operation.id}): query parameter "${name}" is not documented`);
    }
    for (const parameter of declared) {
      if (parameter.required && !(parameter.name in request.query)) {
        problems.push(`${where} (${operation.id}): required query parameter "${parameter.name}" is missing`);
      }
    }
    // Path parameters are IDs (integers), or a date for an occurrence.
    const template = operation.path.split('/');
    // Strip the project prefix unless the operation's own template has it (webhooks).
    const actual = (operation.path.startsWith('/buckets/') ? path : path.replace(/^\/buckets\/\d+(?=\/)/, ''))
      .replace(/\.json$/, '')
      .split('/');
    template.forEach((segment, index) => {
      const value = (actual[index] ?? '').replace(/\.json$/, '');
      if (/^\{.+\}$/.test(segment) && !/^\d+$|^\d{4}-\d{2}-\d{2}$/.test(value)) {
        problems.push(`${where} (${operation.id}): path parameter ${segment} is "${value}", not an ID`);
      }
    });
    if (operation.fileBody) {
      // A file: its own media type (a multipart form for `multipart/form-data`) and a length.
      const type = (request.headers['content-type'] ?? '').toLowerCase();
      const multipart = operation.fileBody === 'multipart/form-data';
      if (
        multipart
          ? !/^multipart\/form-data;\s*boundary=\S+$/.test(type)
          : type === '' || type.startsWith('application/json')
      )
        problems.push(
          `${where} (${operation.id}): Content-Type "${type}" is not ${multipart ? 'a multipart form' : "the file's own type"}`,
        );
      if (!(Number(request.headers['content-length']) > 0))
        problems.push(`${where} (${operation.id}): the file has no Content-Length`);
    } else if (operation.body) {
      if (request.body === undefined && operation.bodyRequired) {
        problems.push(`${where} (${operation.id}): the request has no body, which the operation requires`);
      } else if (request.body !== undefined) {
        const validate = ajv.compile({ $ref: `openapi.json${String(operation.body.$ref ?? '')}` });
        if (!validate(request.body)) {
          for (const error of validate.errors ?? []) {
            problems.push(`${where} (${operation.id}): body${error.instancePath} ${error.message}`);
          }
        }
        const properties = resolve(operation.body).properties as Record<string, unknown> | undefined;
        if (properties && typeof request.body === 'object' && request.body !== null) {
          for (const key of Object.keys(request.body)) {
            if (!(key in properties))
              problems.push(`${where} (${operation.id}): body field "${key}" is not in the schema`);
          }
        }
      }
    } else if (request.body !== undefined && request.method !== 'GET') {
      problems.push(`${where} (${operation.id}): sends a body the operation does not take`);
    }
    return { operation: operation.id, problems };
  };
}
