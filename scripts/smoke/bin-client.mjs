// Copied into the temporary consumer project by check-packages.mjs and run there, so that
// `@modelcontextprotocol/client` and the bin come from that project's npm install, never
// from the workspace.
//
//   node bin-client.mjs <bin path> <expected version>
//
// Checks one installed bin the way an agent uses it: `--version`, then a real MCP client over
// stdio against `<bin> --sandbox`: initialize, tools/list, and one call of a read-only tool
// that needs no arguments; every line the bin writes to stdout must be JSON-RPC. Prints one
// JSON line (the report) to stdout; exits 1 on failure.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';

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

  const transport = new StrictStdioTransport(binPath, ['--sandbox']);
  const client = new Client({ name: 'x-pack-smoke', version: '0.0.0' });
  client.onerror = (error) => problem(`transport error: ${error.message}`);
  const stderr = () => transport.stderr;

  const timer = setTimeout(() => {
    problem(`no answer within ${TIMEOUT_MS / 1000} s; stderr: ${stderr().slice(-2000)}`);
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
    problem(`${error.message}; stderr: ${stderr().slice(-2000)}`);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
  finish(report.problems.length === 0 ? 0 : 1);
}

/**
 * The client end of MCP's stdio transport, strict about stdout: the SDK's own stdio transport
 * skips a line that is not JSON, so a bin that prints a banner or a stray console.log would
 * pass. Here every stdout line must be a JSON-RPC message.
 */
class StrictStdioTransport {
  constructor(command, args) {
    this.command = command;
    this.args = args;
    this.stderr = '';
  }

  async start() {
    this.child = spawn(this.command, this.args, { env: process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (text) => {
      this.stderr += text;
    });
    let buffer = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => {
      buffer += chunk;
      for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
        const line = buffer.slice(0, newline).replace(/\r$/, '');
        buffer = buffer.slice(newline + 1);
        let message;
        try {
          message = JSON.parse(line);
        } catch {
          problem(`stdout carried a line that is not JSON-RPC: ${JSON.stringify(line.slice(0, 200))}`);
          continue;
        }
        if (message?.jsonrpc !== '2.0')
          problem(`stdout carried JSON that is not JSON-RPC: ${line.slice(0, 200)}`);
        else this.onmessage?.(message);
      }
    });
    this.child.once('error', (error) => this.onerror?.(error));
    this.child.once('exit', () => this.onclose?.());
    this.child.stdin.on('error', () => {});
  }

  async send(message) {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  async close() {
    if (!this.child || this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

function finish(code) {
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(code);
}

main().catch((error) => {
  problem(error.message);
  finish(1);
});
