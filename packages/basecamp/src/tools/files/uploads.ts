import { randomBytes } from 'node:crypto';
import { defineTool, InvalidInputError, toolRef, UpstreamError } from '@x/mcp-core';
import { z } from 'zod';
import {
  CampfireLineSchema,
  lazy,
  listSchema,
  text,
  toCampfireLine,
  toUpload,
  UploadSchema,
} from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { AccountSchema, toAccount } from '../admin/account.js';
import { folderId, folderTarget } from '../list-folders.js';
import {
  CREATES,
  DESTROYS,
  dockOverride,
  ITEM_BODY_CHARS,
  id,
  itemProjectId,
  itemScope,
  limit,
  listPage,
  page,
  projectId,
  projectRoute,
  READS,
  richText,
  SETS_STATE,
  scoped,
  send,
  type ToolDeps,
  withinProject,
} from '../shared.js';
import { createAttachment, fileInput, loadFile } from './file-input.js';

type Raw = Record<string, unknown>;

const uploadFileShape = lazy(() => ({
  name: 'upload_file',
  title: 'Upload a file to Docs & Files',
  description: `Uploads a file into a project's Docs & Files (or a folder), with an optional description.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    folder_id: folderId(),
    vault_id: dockOverride(),
    ...fileInput,
    description: richText('What the file is.', 20_000).optional(),
    name: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .refine((value) => !/[/\\\0]/.test(value), 'a name, without folders')
      .optional()
      .describe('A new name for the file in Basecamp, without the extension (e.g. "Q3 plan")'),
  }),
  outputSchema: UploadSchema,
  annotations: CREATES,
  // A file of many megabytes takes a while to send: a client that can poll a task gets one.
  task: 'optional' as const,
}));

export const createUploadFile = (deps: ToolDeps) =>
  defineTool({
    ...uploadFileShape(),
    handler: async (input, { signal }) => {
      const file = await loadFile(deps, input);
      const target = await folderTarget(deps, input, signal);
      const scope = target.scope;
      // A folder is checked before the file is sent, so a wrong folder_id costs no upload.
      if (scope) {
        const folder = scoped(scope, `/vaults/${target.vault}.json`, deps);
        await withinProject(deps, scope, signal, () =>
          deps.client.get(folder.path, { signal, notFound: folder.notFound }),
        );
      }
      const attachment = await createAttachment(deps, file, signal);
      const html = input.description === undefined ? undefined : (await deps.html())(input.description);
      const body = {
        attachable_sgid: attachment.attachable_sgid,
        ...(html === undefined ? {} : { description: html }),
        ...(input.name === undefined ? {} : { base_name: input.name }),
      };
      const path = scope
        ? `/buckets/${input.project_id}/vaults/${target.vault}/uploads.json`
        : `/vaults/${target.vault}/uploads.json`;
      const [markdown, response] = await Promise.all([
        deps.markdown(),
        deps.client.request<Raw>('POST', path, { signal, body, notFound: target.notFound }),
      ]);
      return toUpload(response.data ?? {}, markdown, ITEM_BODY_CHARS);
    },
  });

/** Where each kind of item keeps its rich text, and how it is updated. */
const ATTACHABLE: Record<string, { path: string; label: string }> = {
  Message: { path: 'messages', label: 'message' },
  Document: { path: 'documents', label: 'document' },
  Comment: { path: 'comments', label: 'comment' },
};

const attachFileShape = lazy(() => ({
  name: 'attach_file',
  title: 'Attach a file to a message, document or comment',
  description: `Attaches a file at the end of a message, document or comment (an image inline, anything else as a download). A file on its own in Docs & Files: ${toolRef('upload_file')}.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    recording_id: id('ID of the message, document or comment to attach the file to'),
    ...fileInput,
    caption: z.string().trim().min(1).max(500).optional().describe('A caption shown under an image'),
  }),
  outputSchema: z.object({
    recording_id: z.number(),
    type: z.string().describe('"Message", "Document" or "Comment"'),
    filename: z.string(),
    content_type: z.string(),
    byte_size: z.number(),
    app_url: z.string().nullable(),
  }),
  annotations: CREATES,
}));

export const createAttachFile = (deps: ToolDeps) =>
  defineTool({
    ...attachFileShape(),
    handler: async (input, { signal }) => {
      const file = await loadFile(deps, input);
      const scope = itemScope(
        input.project_id,
        `Item ${input.recording_id}`,
        `/recordings/${input.recording_id}.json`,
        `${toolRef('list_messages')}, ${toolRef('list_documents')} or ${toolRef('list_comments')}`,
      );
      const target = scoped(scope, `/recordings/${input.recording_id}.json`, deps);
      // The item is read first: its type says where its rich text lives, and nothing is uploaded for a wrong ID.
      const item = await withinProject(deps, scope, signal, () =>
        deps.client.get<Raw>(target.path, { signal, notFound: target.notFound }),
      );
      const type = text(item.data?.type) ?? '';
      const kind = ATTACHABLE[type];
      if (!kind) {
        throw new InvalidInputError(
          `Item ${input.recording_id} is a ${type || 'item'} of no rich text a file can be attached to; pass a message, document or comment, or use ${toolRef('upload_file')} to put the file in Docs & Files.`,
        );
      }
      const content = text(item.data?.content);
      if (content === null) {
        throw new UpstreamError(
          `Basecamp answered for ${kind.label} ${input.recording_id} without its content.`,
        );
      }
      const attachment = await createAttachment(deps, file, signal);
      const caption = input.caption === undefined ? '' : ` caption="${escapeAttribute(input.caption)}"`;
      const updated = `${content}<bc-attachment sgid="${escapeAttribute(attachment.attachable_sgid)}"${caption}></bc-attachment>`;
      const answer = await send(deps, 'PUT', `/${kind.path}/${input.recording_id}.json`, {
        signal,
        scope,
        body: { content: updated },
      });
      return {
        recording_id: input.recording_id,
        type,
        filename: attachment.filename,
        content_type: attachment.content_type,
        byte_size: attachment.byte_size,
        app_url: text(answer?.app_url) ?? text(item.data?.app_url),
      };
    },
  });

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const chatNotFound = (chat: number) =>
  `Chat ${chat} was not found, or you have no access to it. Use ${toolRef('get_project_tools')} to see the project's chats.`;

const listChatUploadsShape = lazy(() => ({
  name: 'list_chat_uploads',
  title: 'List files posted in a chat',
  description: `Lists the files posted in a project's chat (Campfire), newest first, with download URLs.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    chat_id: dockOverride(),
    page: page(),
    limit: limit(30),
  }),
  outputSchema: listSchema(CampfireLineSchema),
  annotations: READS,
}));

export const createListChatUploads = (deps: ToolDeps) =>
  defineTool({
    ...listChatUploadsShape(),
    handler: async (input, { signal }) => {
      const chat = await deps.docks.resolve(input.project_id, 'chat', input.chat_id, signal);
      return listPage(deps, projectRoute(deps, input.project_id, `/chats/${chat}/uploads.json`), {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: chatNotFound(chat),
        convert: toCampfireLine,
      });
    },
  });

const uploadChatFileShape = lazy(() => ({
  name: 'upload_chat_file',
  title: 'Post a file in a chat',
  description: `Posts a file as a line of a project's chat (Campfire).`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    chat_id: dockOverride(),
    ...fileInput,
  }),
  outputSchema: CampfireLineSchema,
  annotations: CREATES,
}));

export const createUploadChatFile = (deps: ToolDeps) =>
  defineTool({
    ...uploadChatFileShape(),
    handler: async (input, { signal }) => {
      const file = await loadFile(deps, input);
      const chat = await deps.docks.resolve(input.project_id, 'chat', input.chat_id, signal);
      const [markdown, response] = await Promise.all([
        deps.markdown(),
        deps.client.request<Raw>(
          'POST',
          projectRoute(deps, input.project_id, `/chats/${chat}/uploads.json`),
          {
            signal,
            query: { name: file.filename },
            upload: { data: file.data, contentType: file.contentType },
            notFound: chatNotFound(chat),
          },
        ),
      ]);
      return toCampfireLine(response.data ?? {}, markdown, ITEM_BODY_CHARS);
    },
  });

/** The image types Basecamp takes as a logo, and its limit (the API docs). */
const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/heic'];
const MAX_LOGO_BYTES = 5 * 1024 * 1024;

/** One `multipart/form-data` body with a single file field. */
function multipart(field: string, file: { data: Uint8Array; filename: string; contentType: string }) {
  const boundary = `----basecamp-mcp-${randomBytes(12).toString('hex')}`;
  const name = file.filename.replace(/["\r\n\\]/g, '_');
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    data: new Uint8Array(Buffer.concat([head, file.data, tail])),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

async function account(deps: ToolDeps, signal: AbortSignal) {
  return toAccount((await deps.client.get<Raw>('/account.json', { signal })).data ?? {});
}

const setAccountLogoShape = lazy(() => ({
  name: 'set_account_logo',
  title: "Set the account's logo",
  description: `Uploads or replaces the account's logo (PNG, JPEG, GIF, WebP, AVIF or HEIC, at most 5 MB; administrators and owners only).`,
  inputSchema: z.strictObject(fileInput),
  outputSchema: AccountSchema(),
  annotations: SETS_STATE,
}));

export const createSetAccountLogo = (deps: ToolDeps) =>
  defineTool({
    ...setAccountLogoShape(),
    handler: async (input, { signal }) => {
      const file = await loadFile(deps, input, {
        maxBytes: MAX_LOGO_BYTES,
        accept: (type) => LOGO_TYPES.includes(type),
        acceptLabel: 'a PNG, JPEG, GIF, WebP, AVIF or HEIC image',
      });
      await deps.client.request('PUT', '/account/logo.json', { signal, upload: multipart('logo', file) });
      return account(deps, signal);
    },
  });

const removeAccountLogoShape = lazy(() => ({
  name: 'remove_account_logo',
  title: "Remove the account's logo",
  description:
    "Removes the Basecamp account's logo for everyone (administrators and owners only); Basecamp shows its name instead.",
  inputSchema: z.strictObject({}),
  outputSchema: AccountSchema(),
  annotations: DESTROYS,
}));

export const createRemoveAccountLogo = (deps: ToolDeps) =>
  defineTool({
    ...removeAccountLogoShape(),
    confirm: () => "Remove the Basecamp account's logo for everyone?",
    handler: async (_input, { signal }) => {
      await deps.client.request('DELETE', '/account/logo.json', { signal });
      return account(deps, signal);
    },
  });

export const uploadFile = basecampTool(
  { toolset: 'docs', operations: ['CreateAttachment', 'CreateUpload', 'GetVault'] },
  createUploadFile,
);
export const attachFile = basecampTool(
  {
    toolset: 'docs',
    operations: ['GetRecording', 'CreateAttachment', 'UpdateMessage', 'UpdateDocument', 'UpdateComment'],
  },
  createAttachFile,
);
export const listChatUploads = basecampTool(
  { toolset: 'chat', operations: ['ListCampfireUploads'] },
  createListChatUploads,
);
export const uploadChatFile = basecampTool(
  { toolset: 'chat', operations: ['CreateCampfireUpload'] },
  createUploadChatFile,
);
export const setAccountLogo = basecampTool(
  { toolset: 'admin', operations: ['UpdateAccountLogo', 'GetAccount'] },
  createSetAccountLogo,
);
export const removeAccountLogo = basecampTool(
  { toolset: 'admin', operations: ['RemoveAccountLogo', 'GetAccount'] },
  createRemoveAccountLogo,
);
