// basecamp: list_todos and get_message through the bin against the fake Basecamp, versus a plain
// fetch of the same endpoint (same token, User-Agent) from this process. The fake runs in this
// process for both, so the ratio is what the MCP hop, validation, the client (limiter, ETag
// revalidation: warm calls are 304s for the bin, the plain fetch always gets the full 200) and
// Markdown conversion add. The client-side limit is lifted: 2,000 calls at 50 per 10 s would
// measure the limiter, which bench/basecamp/session.mjs does on its own.
import { IDS, startFakeBasecamp } from '../../packages/basecamp/dist/testing/index.js';

const USER_AGENT = 'bench (bench@example.com)';

export default {
  id: 'basecamp',
  bin: 'packages/basecamp/dist/bin.js',
  async setup() {
    const fake = await startFakeBasecamp();
    const get = async (path) => {
      const response = await fetch(`${fake.url}/${fake.accountId}${path}`, {
        headers: {
          authorization: `Bearer ${fake.accessToken}`,
          'user-agent': USER_AGENT,
          accept: 'application/json',
        },
      });
      if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
      return response.json();
    };
    return {
      args: [],
      env: {
        BASECAMP_API_URL: fake.url,
        BASECAMP_ACCESS_TOKEN: fake.accessToken,
        BASECAMP_ACCOUNT_ID: fake.accountId,
        BASECAMP_RATE_LIMIT_REQUESTS: '1000000',
        // Never the real login file, even if the token above were unset.
        BASECAMP_TOKEN_FILE: '/nonexistent/basecamp-bench/token.json',
      },
      calls: [
        {
          label: 'list_todos (15 items, one upstream page)',
          tool: { name: 'list_todos', arguments: { todolist_id: IDS.launchList, limit: 15 } },
          baseline: () => get(`/todolists/${IDS.launchList}/todos.json`),
        },
        {
          label: 'get_message (rich HTML to Markdown)',
          tool: { name: 'get_message', arguments: { message_id: IDS.richMessage } },
          baseline: () => get(`/messages/${IDS.richMessage}.json`),
        },
      ],
      close: fake.close,
    };
  },
};
