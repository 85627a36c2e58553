// forge: get_ticket_context through the bin against the fake Forge backend, versus a plain fetch
// of GET /tickets/:id with the same bearer token and x-team-id from this process. The fake runs in
// this process for both, so the ratio is what the MCP hop, validation, normalising both ticket
// shapes and rendering Markdown add.
import { startFakeForge } from '../../packages/forge/dist/testing/index.js';

export default {
  id: 'forge',
  bin: 'packages/forge/dist/bin.js',
  async setup() {
    const fake = await startFakeForge();
    const ticketId = 'FOR-1';
    return {
      args: [],
      env: {
        FORGE_API_URL: fake.url,
        FORGE_ACCESS_TOKEN: fake.accessToken,
        FORGE_TEAM_ID: fake.teamId,
        // Never the real login file, even if the token above were unset.
        FORGE_CONFIG_PATH: '/nonexistent/forge-bench/config.json',
      },
      calls: [
        {
          label: 'get_ticket_context',
          tool: { name: 'get_ticket_context', arguments: { ticketId } },
          baseline: async () => {
            const response = await fetch(`${fake.url}/tickets/${ticketId}`, {
              headers: {
                authorization: `Bearer ${fake.accessToken}`,
                'content-type': 'application/json',
                accept: 'application/json',
                'x-team-id': fake.teamId,
              },
            });
            if (!response.ok) throw new Error(`GET /tickets/${ticketId} answered ${response.status}`);
            return response.json();
          },
        },
      ],
      close: fake.close,
    };
  },
};
