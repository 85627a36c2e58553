import { open, realpath } from 'node:fs/promises';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { InvalidInputError, LimitExceededError, UpstreamError } from '@x/mcp-core';
import { z } from 'zod';
import type { ToolDeps } from '../shared.js';

/** Largest file the upload tools send (Basecamp's own limits are larger; a tool call is not the place for more). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** Base64 of MAX_UPLOAD_BYTES, with padding. */
const MAX_BASE64_CHARS = Math.ceil(MAX_UPLOAD_BYTES / 3) * 4;

const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  heic: 'image/heic',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
  zip: 'application/zip',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  mp3: 'audio/mpeg',
};

const BASE64 = z.base64();

/** Base64 validated by `z.base64()` with its message, listed without its pattern. */
const base64 = () =>
  z
    .string()
    .refine((value) => BASE64.safeParse(value).success, { message: 'Invalid base64-encoded string' })
    .meta({ contentEncoding: 'base64' });

/** The fields a tool takes for one file: a path in the upload directory, or base64 content. */
export const fileInput = {
  path: z
    .string()
    .min(1)
    .max(4_096)
    .optional()
    .describe(
      "A file in this server's upload directory (BASECAMP_UPLOAD_DIR), relative to it or absolute; or give content_base64",
    ),
  content_base64: base64()
    .min(1)
    .max(MAX_BASE64_CHARS)
    .optional()
    .describe(
      `The file's bytes, base64-encoded (at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MB), with filename`,
    ),
  filename: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .refine((name) => !/[/\\\0]/.test(name), 'a file name, without folders')
    .optional()
    .describe('With extension, e.g. "plan.pdf"; default: the name in path'),
  content_type: z
    .string()
    .regex(/^[\w.+-]+\/[\w.+-]+$/, 'a media type like image/png')
    .max(255)
    .optional()
    .describe('e.g. "image/png"; default: from the extension'),
};

export interface FileInput {
  path?: string | undefined;
  content_base64?: string | undefined;
  filename?: string | undefined;
  content_type?: string | undefined;
}

export interface LoadedFile {
  data: Uint8Array;
  filename: string;
  contentType: string;
}

/** Reads the file a tool was given, bounded in size; every problem is a typed error naming the fix. */
export async function loadFile(
  deps: ToolDeps,
  input: FileInput,
  options: { maxBytes?: number; accept?: (contentType: string) => boolean; acceptLabel?: string } = {},
): Promise<LoadedFile> {
  const maxBytes = options.maxBytes ?? MAX_UPLOAD_BYTES;
  if ((input.path === undefined) === (input.content_base64 === undefined))
    throw new InvalidInputError('Give the file as path or as content_base64 (exactly one of them).');
  let data: Uint8Array;
  let filename: string;
  if (input.content_base64 !== undefined) {
    if (input.filename === undefined)
      throw new InvalidInputError('filename is required with content_base64 (e.g. "plan.pdf").');
    data = Buffer.from(input.content_base64, 'base64');
    filename = input.filename;
  } else {
    data = await readAllowed(deps, input.path as string, maxBytes);
    filename = input.filename ?? basename(input.path as string);
  }
  if (data.byteLength === 0) throw new InvalidInputError(`The file "${filename}" is empty.`);
  if (data.byteLength > maxBytes) throw tooLarge(data.byteLength, maxBytes);
  const extension = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase() ?? '';
  const contentType = input.content_type ?? TYPES[extension] ?? 'application/octet-stream';
  if (options.accept && !options.accept(contentType)) {
    throw new InvalidInputError(
      `"${filename}" is ${contentType}; this takes ${options.acceptLabel ?? 'other files'}.`,
    );
  }
  return { data, filename, contentType };
}

function tooLarge(bytes: number, maxBytes: number) {
  return new LimitExceededError(
    `The file is ${(bytes / 1024 / 1024).toFixed(1)} MB; at most ${(maxBytes / 1024 / 1024).toFixed(0)} MB can be sent through a tool. Upload it in Basecamp itself.`,
    { details: { max_bytes: maxBytes } },
  );
}

/** A file inside the upload directory (symbolic links resolved), read only when it is small enough. */
async function readAllowed(deps: ToolDeps, path: string, maxBytes: number): Promise<Uint8Array> {
  const directory = deps.client.settings.uploadDir;
  if (directory === undefined) {
    throw new InvalidInputError(
      'This server reads no local files: send the file as content_base64 with filename, or start the server with BASECAMP_UPLOAD_DIR set to the folder of files it may upload.',
    );
  }
  const outside = () =>
    new InvalidInputError(
      `"${path}" is not inside the upload directory (BASECAMP_UPLOAD_DIR); only files there can be uploaded by path.`,
    );
  let real: string;
  let root: string;
  try {
    root = await realpath(directory);
  } catch {
    throw new InvalidInputError('The upload directory (BASECAMP_UPLOAD_DIR) does not exist.');
  }
  try {
    real = await realpath(isAbsolute(path) ? path : resolve(root, path));
  } catch {
    throw new InvalidInputError(`No file "${path}" in the upload directory.`);
  }
  const inside = relative(root, real);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside))
    throw outside();
  const handle = await open(real, 'r').catch(() => {
    throw new InvalidInputError(`"${path}" cannot be read.`);
  });
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new InvalidInputError(`"${path}" is not a file.`);
    if (stats.size > maxBytes) throw tooLarge(stats.size, maxBytes);
    return new Uint8Array(await handle.readFile());
  } finally {
    await handle.close();
  }
}

/** The answer of `POST /attachments.json`: what rich text and uploads refer to the file by. */
export interface Attachment {
  attachable_sgid: string;
  filename: string;
  content_type: string;
  byte_size: number;
}

/** Sends a file to `POST /attachments.json` (step one of every upload). */
export async function createAttachment(
  deps: ToolDeps,
  file: LoadedFile,
  signal: AbortSignal,
): Promise<Attachment> {
  const response = await deps.client.request<Record<string, unknown>>('POST', '/attachments.json', {
    signal,
    query: { name: file.filename },
    upload: { data: file.data, contentType: file.contentType },
  });
  const sgid = response.data?.attachable_sgid;
  if (typeof sgid !== 'string' || sgid === '') {
    throw new UpstreamError(
      `Basecamp answered POST /attachments.json without an attachable_sgid; the file was not attached. Try again; if it keeps failing, the account may have run out of storage.`,
    );
  }
  return {
    attachable_sgid: sgid,
    filename: typeof response.data?.filename === 'string' ? response.data.filename : file.filename,
    content_type:
      typeof response.data?.content_type === 'string' ? response.data.content_type : file.contentType,
    byte_size: typeof response.data?.byte_size === 'number' ? response.data.byte_size : file.data.byteLength,
  };
}
