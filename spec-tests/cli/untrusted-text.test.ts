// The one printer for untrusted text (lib/codec/terminal-text.ts, RULES.md CLI-01), unit by
// unit: what it escapes and how, what it leaves alone, where it cuts and how the cut is shown;
// and the CLI's own formatters that put peer text on a line (the pending display, the report's
// check lines, the engine's diagnostics). The whole commands against a hostile server are in
// hostile-server.test.ts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { FIELD_WIDTH, MESSAGE_WIDTH, URL_WIDTH, escapeCodePoint, untrustedText } from "../../lib/codec/terminal-text.js";
import { describeProgress, pendingDisplay } from "../../lib/cli/progress.js";
import { formatCheck, gradeDiagnostics, gradeError, gradeListRefusal, gradeToolRefusal } from "../../lib/cli/grading.js";
import { McpError } from "../../lib/peer/shared/errors.js";

/** Every character the printer must never let through: C0, DEL, C1, bidi, marks, zero-width, tags, separators. */
const HIDDEN_SAMPLES: readonly [string, string][] = [
  ["\u0000", "\\x00"],
  ["\u0007", "\\x07"],
  ["\t", "\\x09"],
  ["\n", "\\x0a"],
  ["\r", "\\x0d"],
  ["\u001b", "\\x1b"],
  ["\u007f", "\\x7f"],
  ["\u0085", "\\x85"],
  ["\u009b", "\\x9b"],
  ["\u009d", "\\x9d"],
  ["\u00ad", "\\xad"],
  ["\u061c", "\\u061c"],
  ["\u200b", "\\u200b"],
  ["\u200d", "\\u200d"],
  ["\u200e", "\\u200e"],
  ["\u200f", "\\u200f"],
  ["\u202a", "\\u202a"],
  ["\u202b", "\\u202b"],
  ["\u202c", "\\u202c"],
  ["\u202d", "\\u202d"],
  ["\u202e", "\\u202e"],
  ["\u2028", "\\u2028"],
  ["\u2029", "\\u2029"],
  ["\u2060", "\\u2060"],
  ["\u2066", "\\u2066"],
  ["\u2067", "\\u2067"],
  ["\u2068", "\\u2068"],
  ["\u2069", "\\u2069"],
  ["\u3164", "\\u3164"],
  ["\ufeff", "\\ufeff"],
  ["\ud800", "\\ud800"],
  ["\udfff", "\\udfff"],
  ["\u{e0041}", "\\u{e0041}"],
  ["\u{e0100}", "\\u{e0100}"],
];

test("CLI-01: every control, bidi, format and invisible character is shown escaped, in lower-case hex", () => {
  for (const [char, escaped] of HIDDEN_SAMPLES) {
    assert.equal(untrustedText(`a${char}b`), `a${escaped}b`, `U+${(char.codePointAt(0) as number).toString(16)}`);
    assert.equal(escapeCodePoint(char.codePointAt(0) as number), escaped);
  }
  // Every C0 and C1 control and DEL, whole ranges.
  for (let cp = 0; cp <= 0x9f; cp++) {
    if (cp >= 0x20 && cp < 0x7f) continue;
    const shown = untrustedText(String.fromCodePoint(cp));
    assert.match(shown, /^\\x[0-9a-f]{2}$/, `U+${cp.toString(16)} shown as ${JSON.stringify(shown)}`);
  }
});

test("CLI-01: the attacks of a hostile server come out inert: title, OSC 8 link, clear screen, forged PASS line, reversed text", () => {
  const attacks = [
    "\u001b]0;pwned\u0007",
    "\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\",
    "\u001b[2J\u001b[H",
    "ok\rPASS  everything: fine\nPASS  forged line",
    "user\u202egnp.exe",
    "\u009b31m",
  ];
  for (const attack of attacks) {
    const shown = untrustedText(attack);
    assert.doesNotMatch(shown, /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/, JSON.stringify(shown));
  }
  assert.equal(untrustedText("\u001b]0;pwned\u0007"), "\\x1b]0;pwned\\x07");
  assert.equal(untrustedText("ok\rPASS  x"), "ok\\x0dPASS  x");
  assert.equal(untrustedText("user\u202egnp.exe"), "user\\u202egnp.exe");
});

test("CLI-01: printable text is left alone: letters of every script, emoji with their selectors, backslashes, quotes", () => {
  for (const text of ["read_file", "Grüße, Ελληνικά, 日本語, العربية", "❤️ 👍🏽", 'C:\\Users\\me "quoted"', "\\x1b as text", ""])
    assert.equal(untrustedText(text), text);
});

test("CLI-01: a field is cut at 200 code points with a visible marker counting what was left out", () => {
  assert.equal(FIELD_WIDTH, 200);
  assert.equal(MESSAGE_WIDTH, 1000);
  assert.equal(URL_WIDTH, 4096);
  assert.equal(untrustedText("x".repeat(200)), "x".repeat(200));
  assert.equal(untrustedText("x".repeat(201)), `${"x".repeat(200)}…(+1 more)`);
  assert.equal(untrustedText("y".repeat(5000), MESSAGE_WIDTH), `${"y".repeat(1000)}…(+4000 more)`);
  // Code points, not UTF-16 units: 200 emoji fit, the 201st does not.
  assert.equal(untrustedText("😀".repeat(200)), "😀".repeat(200));
  assert.equal(untrustedText("😀".repeat(201)), `${"😀".repeat(200)}…(+1 more)`);
  // Escapes count in full and are never split: 50 escaped ESC fill 200 exactly; an escape that would cross the width is left out whole.
  assert.equal(untrustedText("\u001b".repeat(50)), "\\x1b".repeat(50));
  assert.equal(untrustedText("\u001b".repeat(51)), `${"\\x1b".repeat(50)}…(+1 more)`);
  assert.equal(untrustedText(`${"a".repeat(198)}\u001b`), `${"a".repeat(198)}…(+1 more)`);
  // A huge field costs no more than its width to print.
  const huge = "z".repeat(20 * 1024 * 1024);
  assert.equal(untrustedText(huge).length, 200 + `…(+${huge.length - 200} more)`.length);
});

test("CLI-01: Infinity does not cut; printed text passes through again unchanged; non-strings print by their text form", () => {
  const long = "\u001b".repeat(500);
  assert.equal(untrustedText(long, Infinity), "\\x1b".repeat(500));
  for (const text of ["\u001b]0;t\u0007 and \u202e", "plain", "x".repeat(150)]) {
    const once = untrustedText(text);
    assert.equal(untrustedText(once), once);
    assert.equal(untrustedText(once, Infinity), once);
  }
  assert.equal(untrustedText(42), "42");
  assert.equal(untrustedText(undefined), "undefined");
  assert.equal(untrustedText(Object.create(null)), "[a value without a text form]");
});

test("CLI-01: the pending display escapes the request's label and the server's progress message, and cuts them", () => {
  assert.equal(describeProgress({ progress: 3, total: 10, message: "copying\u001b[2J" }), "[3/10] copying\\x1b[2J");
  assert.equal(describeProgress({ progress: 3, total: undefined, message: "x".repeat(300) }), `[3] ${"x".repeat(200)}…(+100 more)`);
  const written: string[] = [];
  const display = pendingDisplay({ write: (t) => written.push(t), isTTY: false, now: () => 0, every: () => () => undefined });
  const pending = display("tools/call evil\u001b]0;t\u0007");
  pending.progress({ progress: 1, total: undefined, message: "\u202eevil\r" });
  pending.end();
  assert.deepEqual(written, ["... tools/call evil\\x1b]0;t\\x07 0.0s [1] \\u202eevil\\x0d\n"]);
});

test("CLI-01: check lines: the server's error messages and the engine's report of what arrived print escaped and cut", () => {
  const hostile = `boom\u001b[31m\r${"m".repeat(2000)}`;
  const lines = [
    gradeError("tools/call x", new Error(hostile), () => assert.fail("not an McpError")),
    gradeToolRefusal("tools/call x", new McpError(-32000, hostile)),
    gradeToolRefusal("tools/call x", new McpError(-32021, "needs", { requiredCapabilities: { "\u202eroots": {} } })),
    gradeListRefusal("tools/list", new McpError(-32000, hostile)),
  ].map((check) => formatCheck(check, "2025-11-25"));
  for (const line of lines) {
    assert.doesNotMatch(line, /[\u0000-\u0009\u000b-\u001f\u202e]/, line);
    assert.ok(line.length < MESSAGE_WIDTH + 400, `${line.length} characters`);
  }
  assert.match(lines[0] as string, /boom\\x1b\[31m\\x0dm+…\(\+\d+ more\)/);
  assert.match(lines[2] as string, /\\u202eroots/);
  const diagnostics = gradeDiagnostics([
    { kind: "violation", rule: "P-05", expected: "a greater progress", got: `"\u001b]0;t\u0007${"g".repeat(500)}"` },
  ]);
  assert.match(diagnostics.detail, /got "\\x1b\]0;t\\x07g+…\(\+\d+ more\)/);
  assert.doesNotMatch(diagnostics.detail, /[\u0000-\u001f]/);
});
