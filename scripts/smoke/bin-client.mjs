// Copied into the temporary consumer project by check-packages.mjs and run there, so that
// `@modelcontextprotocol/client` and the bin come from that project's npm install, never
// from the workspace.
//
//   node bin-client.mjs <bin path> <expected version>
//
// Checks one installed bin the way an agent uses it: `--version`, then a real MCP client over
// stdio against `<bin> --sandbox`: initialize, tools/list, and one call of a read-only tool
// that needs no arguments. Prints one JSON line (the report) to stdout; exits 1 on failure.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [binPath, expectedVersion] = process.argv.slice(2);
const TIMEOUT_MS = 30_000;
const report = { bin: binPath, problems: [] };

const problem = (text) => report.problems.push(text);

async function main() {
  const { stdout } = await promisify(execFile)(binPath, ['--version'], { timeout: TIMEOUT_MS });
  report.version = stdout.trim();
  if (!report.version.endsWith(expectedVersion)) {
    problem(`--version printed "${report.version}", expected the package version ${expectedVersion}`);
  }

  const transport = new StdioClientTransport({
    command: binPath,
    args: ['--sandbox'],
    env: process.env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'x-pack-smoke', version: '0.0.0' });
  // A line on stdout that is not JSON-RPC (a stray console.log, a banner) arrives here.
  client.onerror = (error) => problem(`transport error (stdout must carry only JSON-RPC): ${error.message}`);

  const timer = setTimeout(() => {
    problem(`no answer within ${TIMEOUT_MS / 1000} s; stderr: ${stderr.slice(-2000)}`);
    finish(1);
  }, TIMEOUT_MS);
  try {
    await client.connect(transport);
    report.server = client.getServerVersion();

    const { tools } = await client.listTools();
    report.tools = tools.length;
    if (tools.length === 0) problem('tools/list returned no tools');

    const tool = tools.find(
      (candidate) =>
        candidate.annotations?.readOnlyHint === true && (candidate.inputSchema.required ?? []).length === 0,
    );
    if (!tool) {
      problem('no read-only tool without required arguments to call in the sandbox');
    } else {
      const result = await client.callTool({ name: tool.name, arguments: {} });
      const text = result.content?.find((block) => block.type === 'text')?.text ?? '';
      report.call = { tool: tool.name, isError: result.isError === true, text: text.slice(0, 120) };
      if (result.isError) problem(`${tool.name} --sandbox answered an error: ${text.slice(0, 500)}`);
      if (!result.content?.length) problem(`${tool.name} answered no content`);
    }
  } catch (error) {
    problem(`${error.message}; stderr: ${stderr.slice(-2000)}`);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
  finish(report.problems.length === 0 ? 0 : 1);
}

function finish(code) {
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(code);
}

main().catch((error) => {
  problem(error.message);
  finish(1);
});
