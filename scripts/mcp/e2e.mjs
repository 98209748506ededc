// End-to-end test of `awp mcp` with a client nobody here wrote: the
// official MCP TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// package-lock.json). It runs two real peers (`awp run`), drives
// `awp mcp` on alice's data directory as a subprocess over stdio, as a
// coding agent's harness does, and has bob answer with the command line.
//
//   node e2e.mjs path/to/awp
//
// Exit status 0 when every check passed; the first failure is printed.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const awp = resolve(process.argv[2] ?? "../../build/awp");
const run = promisify(execFile);
const env = { ...process.env, AWP_DATA: "", AWP_KEYRING: "" };
const TOOLS = ["awp_whoami", "awp_peers", "awp_send", "awp_inbox", "awp_wait", "awp_show", "awp_request", "awp_presence"];

// Everything this test started, undone at the end whatever happens.
const dirs = [];
const peers = [];
let client;

function log(...a) {
  console.error("e2e:", ...a);
}

// cli runs `awp ARGS…` and returns its stdout.
async function cli(...args) {
  const { stdout } = await run(awp, args, { env, timeout: 60_000 });
  return stdout;
}

// startPeer runs `awp run` on a fresh data directory and resolves once it
// logged "ready", with its key and listen address.
function startPeer(name) {
  const dir = mkdtempSync(join(tmpdir(), "awp"));
  dirs.push(dir);
  const p = spawn(awp, ["run", "--keyring", "file", "--data", dir, "--name", name, "--warm-buffers=false"], { env, stdio: ["ignore", "ignore", "pipe"] });
  peers.push(p);
  return new Promise((ok, fail) => {
    let buf = "", listen = "";
    p.stderr.setEncoding("utf8");
    p.stderr.on("data", (chunk) => {
      buf += chunk;
      for (let i; (i = buf.indexOf("\n")) >= 0; ) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const addr = line.match(/ msg=listening addr=(\S+)/);
        if (addr) listen = addr[1];
        const ready = line.match(/ msg=ready key=(\S+)/);
        if (ready) ok({ name, dir, key: ready[1], listen });
      }
    });
    p.on("exit", (code) => fail(new Error(`${name}: awp run exited with ${code} before ready`)));
  });
}

// call calls a tool and returns its result; opts go to the SDK.
async function call(name, args, opts) {
  return client.callTool({ name, arguments: args }, undefined, opts);
}

// ok calls a tool that must succeed and returns its structured content.
async function ok(name, args, opts) {
  const res = await call(name, args, opts);
  assert.ok(!res.isError, `${name}: tool error: ${JSON.stringify(res.content)}`);
  assert.ok(res.structuredContent, `${name}: no structured content`);
  assert.equal(res.content[0].type, "text", `${name}: no text rendering`);
  return res.structuredContent;
}

async function main() {
  const [bob, alice] = await Promise.all([startPeer("bob"), startPeer("alice")]);
  log("peers up:", alice.key, bob.key);
  assert.equal((await cli("connect", "--data", alice.dir, bob.listen)).trim(), bob.key);

  const transport = new StdioClientTransport({ command: awp, args: ["mcp", "--data", alice.dir], env, stderr: "inherit" });
  client = new Client({ name: "awp-e2e", version: "1.0.0" });
  await client.connect(transport);
  log("connected to", client.getServerVersion());

  // The tools, exactly, each with input and output schemas.
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
  for (const t of tools) {
    assert.equal(t.inputSchema.type, "object", `${t.name} input schema`);
    assert.equal(t.outputSchema?.type, "object", `${t.name} output schema`);
  }

  const me = await ok("awp_whoami", {});
  assert.equal(me.key, alice.key);
  assert.equal(me.name, "alice");

  // Send to bob by name.
  const sent = await ok("awp_send", { to: "bob", subject: "e2e", text: "hello from the TypeScript SDK" });
  assert.equal(sent.to, bob.key);
  assert.match(sent.th, /^thr_/);

  // Wait for bob's reply, which bob sends while the wait blocks.
  const waiting = ok("awp_wait", { th: sent.th, timeout_s: 60 }, { timeout: 90_000, resetTimeoutOnProgress: true, onprogress: () => {} });
  await new Promise((r) => setTimeout(r, 500));
  const reply = JSON.parse(await cli("send", "--data", bob.dir, "--to", alice.key, "--th", sent.th, "--re", sent.id, "--text", "hello back"));
  const got = await waiting;
  assert.equal(got.timed_out, false);
  assert.equal(got.threads.length, 1);
  const line = got.threads[0].lines[0];
  assert.equal(line.id, reply.id);
  assert.equal(line.re, sent.id);
  assert.equal(line.text, "hello back");
  assert.equal(line.from_name, "bob");

  // Another line from bob: the inbox hands it out once.
  await cli("send", "--data", bob.dir, "--to", alice.key, "--th", sent.th, "--text", "second");
  let inbox;
  for (let i = 0; i < 200; i++) {
    inbox = await ok("awp_inbox", { peek: true });
    if (inbox.threads.length === 1) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(inbox.threads[0].lines[0].text, "second");
  inbox = await ok("awp_inbox", {});
  assert.equal(inbox.threads.length, 1);
  inbox = await ok("awp_inbox", {});
  assert.deepEqual(inbox.threads, []);

  // The thread as a resource.
  const res = await client.readResource({ uri: `awp://thread/${sent.th}` });
  const thread = JSON.parse(res.contents[0].text);
  assert.equal(thread.total, 3);
  assert.equal(thread.subject, "e2e");

  // A bad call is a tool error an agent can act on, and the server goes on.
  const bad = await call("awp_send", { to: "nobody", text: "x" });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /awp_peers/);
  assert.equal((await ok("awp_peers", {})).peers[0].name, "bob");

  // The server ends when its stdin closes.
  const pid = transport.pid;
  await client.close();
  client = undefined;
  for (let i = 0; ; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      break; // gone
    }
    assert.ok(i < 100, "awp mcp still runs after its stdin closed");
    await new Promise((r) => setTimeout(r, 50));
  }
  log("ok");
}

let failed = false;
const watchdog = setTimeout(() => {
  log("timed out");
  process.exit(1);
}, 180_000);
try {
  await main();
} catch (e) {
  failed = true;
  log("FAIL:", e?.stack ?? e);
} finally {
  clearTimeout(watchdog);
  if (client) await client.close().catch(() => {});
  await Promise.all(peers.map((p) => new Promise((r) => {
    if (p.exitCode !== null) return r();
    p.on("exit", r);
    p.kill("SIGINT");
  })));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
