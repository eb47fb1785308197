// LineEncoder (lib/wire/line-encoder.ts), the buffer behind Engine.takeBytes: bytes handed out are
// never written again, whatever later drains do (fill the slab, replace it, grow it); text that
// is not ASCII and does not fit is encoded in pieces without splitting a character; a drain that
// needed a slab over the retained bound comes out as an exact copy and the slab is let go; a
// drain interrupted by an exception leaves nothing behind in the next.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine, LineEncoder } from "../../lib/internal.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

function drain(encoder: LineEncoder, texts: readonly string[]): Uint8Array | undefined {
  encoder.begin();
  for (const text of texts) encoder.write(text, true);
  return encoder.take();
}

test("bytes handed out stay as they were while later drains fill and replace the slab", () => {
  const encoder = new LineEncoder();
  const held: { bytes: Uint8Array; copy: Uint8Array }[] = [];
  // 2000 drains of ~60 bytes: several 16 KiB slabs, each filled to its end and replaced.
  for (let i = 0; i < 2000; i++) {
    const bytes = drain(encoder, [JSON.stringify({ jsonrpc: "2.0", id: i, result: { text: "x".repeat(i % 40) } })])!;
    held.push({ bytes, copy: bytes.slice() });
  }
  const buffers = new Set(held.map((h) => h.bytes.buffer));
  assert.ok(buffers.size > 1, "the drains span more than one slab");
  assert.ok(buffers.size < held.length / 10, "drains share slabs rather than each getting a buffer");
  for (const [i, h] of held.entries()) {
    assert.deepEqual(h.bytes, h.copy, `drain ${i} changed after it was handed out`);
    assert.deepEqual(JSON.parse(utf8.decode(h.bytes)), { jsonrpc: "2.0", id: i, result: { text: "x".repeat(i % 40) } });
  }
});

test("a drain that does not fit moves to a larger slab without touching what was handed out", () => {
  const encoder = new LineEncoder();
  const first = drain(encoder, ["a".repeat(10_000)])!;
  const copy = first.slice();
  // 1000 messages in one drain: more than the rest of the slab, so the drain grows into a new one.
  const texts = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ id: i }));
  const batch = drain(encoder, texts)!;
  assert.deepEqual(first, copy);
  assert.equal(utf8.decode(batch), texts.map((t) => t + "\n").join(""));
});

test("STD-01: text that is not ASCII is encoded whole across growth, never split inside a character", () => {
  for (const unit of ["é", "€", "😀"]) {
    const encoder = new LineEncoder();
    drain(encoder, ["x".repeat(16 * 1024 - 5)]); // leaves a few bytes of the first slab
    const text = `"${unit.repeat(30_000)}"`;
    const bytes = drain(encoder, [text])!;
    assert.equal(utf8.decode(bytes), text + "\n", `${unit}: bytes decode back to the text and its newline`);
  }
});

test("STD-01: short text that is not ASCII gets all its bytes and its newline, alone in a drain or after others", () => {
  const encoder = new LineEncoder();
  for (const text of ['"é"', '"€"', '"😀"', '"aé"', '"\u00ff\u0100"']) {
    assert.equal(utf8.decode(drain(encoder, [text])!), text + "\n", text);
    assert.equal(utf8.decode(drain(encoder, ['"a"', text])!), `"a"\n${text}\n`, `"a" then ${text}`);
  }
  encoder.begin();
  encoder.write('"é"\n"b"\n', false);
  assert.equal(utf8.decode(encoder.take()!), '"é"\n"b"\n', "a batch's text, newlines included");
});

test("STD-01: a newline that lands exactly at the end of the slab still gets its byte", () => {
  const encoder = new LineEncoder();
  const first = drain(encoder, ["y".repeat(100)])!; // the slab is 16 KiB from here
  const exact = "z".repeat(16 * 1024 - first.length - 1);
  encoder.begin();
  encoder.write(exact, false);
  encoder.write("", true);
  const bytes = encoder.take()!;
  assert.equal(utf8.decode(bytes), exact + "\n");
});

test("ENG-08: a drain over the retained bound takes its slab along, at least half used, and the encoder lets it go", () => {
  const encoder = new LineEncoder();
  const big = "b".repeat(1024 * 1024);
  const bytes = drain(encoder, [big])!;
  assert.equal(bytes.length, big.length + 1);
  assert.equal(bytes.buffer.byteLength, big.length + 1, "ASCII fills the slab made for it exactly");
  assert.equal(encoder.slabBytes, 0, "no slab kept after a drain that needed more than the bound");
  assert.equal(utf8.decode(drain(encoder, ["{}"])!), "{}\n");
  assert.ok(encoder.slabBytes <= 64 * 1024);
  // After a small drain, a big one that is not ASCII starts inside the slab and grows past the bound.
  const small = drain(encoder, ["{}"])!;
  const second = drain(encoder, ["€".repeat(100_000)])!;
  assert.notEqual(second.buffer, small.buffer, "the big drain moved to a slab of its own");
  assert.equal(second.byteOffset, 0);
  assert.ok(
    second.buffer.byteLength <= 2 * second.length,
    `its slab (${second.buffer.byteLength} bytes) is at least half used by its ${second.length} bytes`,
  );
  assert.equal(utf8.decode(second), "€".repeat(100_000) + "\n");
  assert.equal(utf8.decode(small), "{}\n");
  assert.equal(encoder.slabBytes, 0);
});

test("ENG-08: between drains the encoder keeps at most 64 KiB, whatever the drains' sizes", () => {
  const encoder = new LineEncoder();
  for (const size of [10, 40_000, 70_000, 5, 65_535, 200_000, 30_000, 1]) {
    drain(encoder, ["s".repeat(size)]);
    assert.ok(encoder.slabBytes <= 64 * 1024, `after a drain of ${size}: ${encoder.slabBytes} bytes kept`);
  }
});

test("an empty drain gives undefined; a drain cut short is dropped by the next begin", () => {
  const encoder = new LineEncoder();
  encoder.begin();
  assert.equal(encoder.take(), undefined);
  encoder.begin();
  encoder.write('{"half":', true); // as if JSON.stringify of the next message had thrown
  assert.equal(utf8.decode(drain(encoder, ["{}"])!), "{}\n");
});

test("ENG-09: Engine.takeBytes: held output survives later drains, and a value with no JSON form is refused alone (it no longer throws)", () => {
  const client = new Engine({ role: "client", info: { name: "c", version: "1" } });
  client.initialize();
  const init = client.takeBytes()!;
  const copy = init.slice();
  const server = new Engine({ role: "server", info: { name: "s", version: "1" }, capabilities: { tools: {} } });
  server.receiveBytes(init);
  client.receiveBytes(server.takeBytes()!);
  for (let i = 0; i < 500; i++) {
    client.request("ping", undefined);
    server.receiveBytes(client.takeBytes()!);
    client.receiveBytes(server.takeBytes()!);
  }
  assert.deepEqual(init, copy);
  client.request("tools/call", { name: "t", arguments: { n: 1n } } as never);
  assert.equal(client.takeBytes(), undefined, "the one message of the drain is refused (lib/wire/outbound-json.ts)");
  client.request("ping", undefined);
  const after = utf8.decode(client.takeBytes()!);
  assert.match(after, /^\{"jsonrpc":"2.0","id":\d+,"method":"ping"\}\n$/, "nothing of the refused drain leaks into the next");
});
