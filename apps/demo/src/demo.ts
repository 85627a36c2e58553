import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { connectHttp, spawnStdioClient, startHttpBin } from '@x/mcp-core/testing';

const serverBin = join(
  dirname(createRequire(import.meta.url).resolve('@x/server/package.json')),
  'dist/bin.js',
);
const tty = process.stdout.isTTY;
const dim = (text: string) => (tty ? `\x1b[2m${text}\x1b[0m` : text);
const bold = (text: string) => (tty ? `\x1b[1m${text}\x1b[0m` : text);

type Client = Awaited<ReturnType<typeof spawnStdioClient>>['client'];
type Data = Record<string, unknown>;

const step = (text: string) => console.log(`\n${bold(text)}`);

/**
 * Calls a tool and prints the exchange: `summary` picks what matters from the structured data;
 * otherwise the text (Markdown, or pretty JSON) is shown, cut to `lines`. Returns the data.
 */
async function call(
  client: Client,
  name: string,
  args: Data,
  { lines = 8, summary }: { lines?: number; summary?: (data: Data) => string[] } = {},
): Promise<Data> {
  const result = await client.callTool({ name, arguments: args });
  const text = result.content
    .map((block) => (block.type === 'text' ? block.text : `[${block.type}]`))
    .join('\n');
  const data = (result.isError ? JSON.parse(text) : (result.structuredContent ?? {})) as Data;
  console.log(`→ ${name} ${dim(JSON.stringify(args))}`);
  let shown = summary && !result.isError ? summary(data) : text.split('\n');
  if (!summary && text.startsWith('{')) shown = JSON.stringify(JSON.parse(text), null, 2).split('\n');
  const body = shown.slice(0, lines).map((line) => `    ${line}`);
  if (shown.length > lines) body.push(dim(`    … ${shown.length - lines} more lines`));
  console.log(`  ${result.isError ? '✗ tool error' : '✓'}\n${body.join('\n')}`);
  return data;
}

/** One line per item of a list result. */
const items =
  (key: string, line: (item: Data) => string) =>
  (data: Data): string[] => {
    const list = (data[key] as Data[] | undefined) ?? [];
    return [`${list.length} ${key}:`, ...list.map((item) => `- ${line(item)}`)];
  };

const first = (list: unknown): Data => {
  const item = Array.isArray(list) ? list[0] : undefined;
  if (!item || typeof item !== 'object')
    throw new Error(`expected a non-empty list, got ${JSON.stringify(list)}`);
  return item as Data;
};

/** The tools a new session starts with, as the stdio session saw them first. */
let firstToolCount = 0;

async function agentSession(client: Client): Promise<void> {
  let listChanged = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    listChanged++;
  });
  const info = client.getServerVersion();
  const { tools } = await client.listTools();
  firstToolCount = tools.length;
  console.log(`connected to ${info?.name} ${info?.version}: ${tools.length} tools`);
  for (const provider of ['basecamp', 'forge', 'context_forge', 'bbj_rag']) {
    const own = tools.filter((tool) => tool.name.startsWith(`${provider}_`));
    const reads = own.filter((tool) => tool.annotations?.readOnlyHint).length;
    console.log(
      `  ${provider.padEnd(14)} ${String(own.length).padStart(2)} tools ${dim(`(${reads} read-only)`)}`,
    );
  }

  step('1. Forge: pick up a ticket');
  const listed = await call(client, 'forge_list_tickets', {}, { lines: 5 });
  const picked = first(listed.tickets);
  const ticketId = String(picked.slug ?? picked.id);
  const ticket = await call(client, 'forge_get_ticket_context', { ticketId }, { lines: 14 });
  await call(
    client,
    'forge_get_file_changes',
    { ticketId },
    { summary: items('fileChanges', (file) => `${file.action} ${file.path}`) },
  );

  step('2. Context Forge: record it on the project and build the context prompt');
  const projects = await call(
    client,
    'context_forge_project_list',
    {},
    {
      summary: items('projects', (item) => `${item.id}  ${item.name}  ${dim(`slice ${item.slice || '-'}`)}`),
    },
  );
  const project = first(projects.projects);
  await call(
    client,
    'context_forge_project_update',
    {
      id: project.id,
      slice: `${ticketId.toLowerCase()}-password-reset`,
      customData: { recentEvents: `Picked up ${ticketId}: ${String(ticket.title ?? '')}` },
    },
    {
      summary: (data) => [
        `slice: ${data.slice}`,
        `recentEvents: ${(data.customData as Data).recentEvents}`,
        `availableTools (kept): ${(data.customData as Data).availableTools}`,
      ],
    },
  );
  await call(
    client,
    'context_forge_context_build',
    { projectId: project.id, additionalInstructions: `Implement ${ticketId}.` },
    { lines: 12 },
  );

  step('3. BBj documentation: look something up before writing code');
  await call(
    client,
    'bbj_rag_search_bbj_knowledge',
    { query: 'add a button to a window', limit: 2 },
    { lines: 10 },
  );

  step('4. Basecamp: the team to-do list, and a new to-do');
  const named = (item: Data) => `${item.id}  ${item.name ?? item.title}`;
  const bcProjects = await call(client, 'basecamp_list_projects', {}, { summary: items('items', named) });
  const lists = await call(
    client,
    'basecamp_list_todolists',
    { project_id: first(bcProjects.items).id },
    { summary: items('items', named) },
  );
  const list = first(lists.items);
  const assignees = (todo: Data) =>
    ((todo.assignees as Data[] | undefined) ?? []).map((person) => person.name).join(', ');
  await call(
    client,
    'basecamp_list_todos',
    { todolist_id: list.id },
    {
      summary: items(
        'items',
        (todo) =>
          `${named(todo)}${todo.due_on ? `, due ${todo.due_on}` : ''}${assignees(todo) ? ` -> ${assignees(todo)}` : ''}`,
      ),
    },
  );
  await call(
    client,
    'basecamp_create_todo',
    { todolist_id: list.id, content: `Review ${ticketId} once merged` },
    { summary: (todo) => [`created to-do ${named(todo)}`, String(todo.app_url)] },
  );

  step('5. Basecamp: move a card and answer a check-in, adding their toolsets while connected');
  await call(
    client,
    'basecamp_list_toolsets',
    {},
    {
      lines: 12,
      summary: items(
        'toolsets',
        (toolset) =>
          `${String(toolset.name).padEnd(9)} ${toolset.enabled ? 'on' : dim(`off (${toolset.served_count}/${toolset.tool_count} tools served)`)}`,
      ),
    },
  );
  const added = (data: Data) => {
    const names = (data.added as string[] | undefined) ?? [];
    return [`added ${names.length} tools: ${names.slice(0, 4).join(', ')}, …`];
  };
  await call(client, 'basecamp_enable_toolset', { toolset: 'cards' }, { summary: added });
  console.log(
    `  ${dim(`notifications/tools/list_changed received ${listChanged}×; tools/list → ${(await client.listTools()).tools.length} tools`)}`,
  );
  const board = first(bcProjects.items);
  const table = await call(
    client,
    'basecamp_get_card_table',
    { project_id: board.id },
    {
      summary: items(
        'columns',
        (column) =>
          `${column.id}  ${column.title} ${dim(`(${column.cards_count} card${column.cards_count === 1 ? '' : 's'})`)}`,
      ),
    },
  );
  const columns = (table.columns as Data[] | undefined) ?? [];
  const column = (title: string) => {
    const found = columns.find((each) => each.title === title);
    if (!found) throw new Error(`no column ${title} in ${JSON.stringify(columns)}`);
    return found;
  };
  const cards = await call(
    client,
    'basecamp_list_cards',
    { column_id: column('In progress').id },
    { summary: items('items', named) },
  );
  await call(
    client,
    'basecamp_move_card',
    { card_id: first(cards.items).id, column_id: column('Review').id },
    { summary: (card) => [`"${card.title}" is now in ${(card.parent as Data).title}`] },
  );
  await call(client, 'basecamp_enable_toolset', { toolset: 'checkins' }, { summary: added });
  // The project whose dock has its check-ins switched on.
  const team = ((bcProjects.items as Data[]) ?? []).find((item) =>
    ((item.enabled_tools as string[] | undefined) ?? []).includes('questionnaire'),
  );
  if (!team) throw new Error('no project with check-ins');
  const questions = await call(
    client,
    'basecamp_list_checkin_questions',
    { project_id: team.id },
    { summary: items('items', (question) => `${question.id}  ${question.title}`) },
  );
  await call(
    client,
    'basecamp_answer_checkin',
    {
      question_id: first(questions.items).id,
      content: `Picked up **${ticketId}** and moved the hinge card to Review.`,
    },
    { summary: (answer) => [`answered as ${(answer.author as Data).name}: ${answer.content}`] },
  );

  step('6. Mistakes come back as typed errors the model can act on');
  await call(client, 'forge_get_ticket_context', { ticketId: 'FOR-9999' });
  await call(client, 'context_forge_project_update', { id: project.id });

  step('7. Prompts and resources: what a client offers as slash commands and attachments');
  await promptsAndResources(client, ticketId);
}

/** Lists the prompts, gets the Forge execute prompt for the ticket, and reads the ticket as a resource. */
async function promptsAndResources(client: Client, ticketId: string): Promise<void> {
  const { prompts } = await client.listPrompts();
  console.log(
    `→ prompts/list\n  ✓ ${prompts.length} prompts: ${prompts.map((prompt) => prompt.name).join(', ')}`,
  );
  const completion = await client.complete({
    ref: { type: 'ref/prompt', name: 'forge_execute' },
    argument: { name: 'ticketId', value: 'FOR' },
  });
  console.log(
    `→ completion/complete forge_execute ticketId "FOR"\n  ✓ ${completion.completion.values.join(', ')}`,
  );
  const prompt = await client.getPrompt({ name: 'forge_execute', arguments: { ticketId } });
  const text = prompt.messages
    .map((message) => (message.content.type === 'text' ? message.content.text : ''))
    .join('\n');
  const lines = text.split('\n');
  console.log(`→ prompts/get forge_execute ${dim(JSON.stringify({ ticketId }))}\n  ✓ ${prompt.description}`);
  console.log(
    lines
      .slice(0, 6)
      .map((line) => `    ${line}`)
      .join('\n'),
  );
  console.log(dim(`    … ${lines.length - 6} more lines, the ticket inside <ticket_context>`));
  const { resourceTemplates } = await client.listResourceTemplates();
  console.log(
    `→ resources/templates/list\n  ✓ ${resourceTemplates.map((template) => template.uriTemplate).join(', ')}`,
  );
  const uri = `forge://tickets/${ticketId}`;
  const read = await client.readResource({ uri });
  const content = read.contents[0] as { mimeType?: string; text?: string } | undefined;
  const body = (content?.text ?? '').split('\n');
  console.log(`→ resources/read ${uri}\n  ✓ ${content?.mimeType}`);
  console.log(
    body
      .slice(0, 6)
      .map((line) => `    ${line}`)
      .join('\n'),
  );
}

async function httpSession(env: Record<string, string | undefined>, config: string): Promise<void> {
  const token = `demo-${process.pid}-${Date.now()}`;
  // info level: the server announces its URL on stderr.
  const server = await startHttpBin({
    command: process.execPath,
    args: [serverBin, '--sandbox', '--config', config, '--http', '--port', '0'],
    env: { ...env, MCP_HTTP_TOKEN: token, MCP_LOG_LEVEL: 'info' },
  });
  try {
    const { url } = server;
    console.log(`listening on ${url} (bearer token required)`);
    const health = await fetch(new URL('/healthz', url));
    console.log(`GET /healthz → ${health.status}`);
    const ready = await fetch(new URL('/readyz', url));
    const report = (await ready.json()) as { providers: { id: string; ready: boolean }[] };
    console.log(
      `GET /readyz  → ${ready.status} ${report.providers.map((provider) => `${provider.id}: ${provider.ready ? 'ready' : 'not ready'}`).join(', ')}`,
    );
    const unauthorized = await fetch(url, { method: 'POST', body: '{}' });
    console.log(`POST /mcp without the token → ${unauthorized.status}`);
    const http = await connectHttp(url, { token });
    try {
      const count = (await http.client.listTools()).tools.length;
      // Stateless: every request starts from the configured tools; what the stdio session enabled stays there.
      console.log(
        `tools/list over HTTP → ${count} tools ${dim(
          count === firstToolCount
            ? `(as the stdio session began: each HTTP request is served afresh, so the toolsets enabled over stdio are not there)`
            : `(the stdio session began with ${firstToolCount})`,
        )}`,
      );
      await call(
        http.client,
        'basecamp_search',
        { query: 'launch' },
        { summary: items('items', (hit) => `${hit.type}  ${hit.title}`) },
      );
    } finally {
      await http.close();
    }
  } finally {
    await server.stop();
  }
}

const home = await mkdtemp(join(tmpdir(), 'x-mcp-demo-'));
// Every provider, with Basecamp's dynamic toolsets: the model adds card tables and check-ins itself.
const config = join(home, 'server.json');
await writeFile(
  config,
  JSON.stringify({
    providers: {
      basecamp: { settings: { dynamicToolsets: true } },
      forge: {},
      'context-forge': {},
      'bbj-rag': {},
    },
  }),
);
// The server gets a home of its own and none of the user's provider settings: no login file,
// config or store of the user is ever read.
const env: Record<string, string | undefined> = {
  HOME: home,
  USERPROFILE: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  APPDATA: join(home, 'AppData'),
  MCP_LOG_LEVEL: 'warn',
};
for (const name of Object.keys(process.env)) {
  if (/^(BASECAMP|FORGE|CONTEXT_FORGE|BBJ_RAG|MCP_SERVER|MCP_HTTP)_/.test(name)) env[name] = undefined;
}
try {
  console.log(
    bold('The composed MCP server with Basecamp, Forge, Context Forge and BBj docs, on local fakes'),
  );
  step('stdio: spawning `x-mcp-server --sandbox --config server.json` the way an agent does');
  const stdio = await spawnStdioClient({
    command: process.execPath,
    args: [serverBin, '--sandbox', '--config', config],
    env,
  });
  try {
    await agentSession(stdio.client);
  } finally {
    await stdio.close();
  }
  step('HTTP: the same server as a stateless Streamable HTTP service');
  await httpSession(env, config);
  console.log(`\n${bold('Demo complete.')}`);
} finally {
  await rm(home, { recursive: true, force: true });
}
