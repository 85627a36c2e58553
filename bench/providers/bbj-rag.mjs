// bbj-rag: search_bbj_knowledge through the bin against the fake BBj RAG service, versus a plain
// fetch of POST /search (the same request body) from this process. The fake runs in this process
// for both, so the ratio is what the MCP hop, validation and Markdown formatting add.
import { startFakeBbjRag } from '../../packages/bbj-rag/dist/testing/index.js';

export default {
  id: 'bbj-rag',
  bin: 'packages/bbj-rag/dist/bin.js',
  async setup() {
    const fake = await startFakeBbjRag();
    const query = 'add a button to a window';
    return {
      args: [],
      env: { BBJ_RAG_API_URL: fake.url },
      calls: [
        {
          label: 'search_bbj_knowledge',
          tool: { name: 'search_bbj_knowledge', arguments: { query, generation: 'bbj-gui', limit: 5 } },
          baseline: async () => {
            const response = await fetch(`${fake.url}/search`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'application/json' },
              body: JSON.stringify({ query, limit: 5, generation: 'bbj_gui' }),
            });
            if (!response.ok) throw new Error(`/search answered ${response.status}`);
            return response.json();
          },
        },
      ],
      close: fake.close,
    };
  },
};
