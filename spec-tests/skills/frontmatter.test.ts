// The SKILL.md frontmatter reader (lib/skills/frontmatter.ts, RULES.md SK-06): the YAML subset
// skills use, read as YAML 1.2's core schema reads it, and a refusal naming the line for
// everything outside it or read differently by YAML readers. Expected values are what the YAML
// specification gives for each document.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFrontmatter } from "../../lib/peer/skills.js";

const read = (yaml: string): unknown => {
  const reading = readFrontmatter(`---\n${yaml}\n---\nbody\n`);
  return reading.ok ? { ...reading.frontmatter } : reading.problem;
};

test("SK-06: the subset: plain, quoted and block scalars, core-schema numbers, booleans and null, lists and nested mappings", () => {
  const cases: [string, unknown][] = [
    ["name: a\ndescription: plain text, with commas", { name: "a", description: "plain text, with commas" }],
    ["a: 'it''s'\nb: \"tab\\there \\u00e9 #not\" # comment", { a: "it's", b: "tab\there é #not" }],
    ["a: 1\nb: -2\nc: 1.5\nd: true\ne: False\nf: ~\ng:\nh: null", { a: 1, b: -2, c: 1.5, d: true, e: false, f: null, g: null, h: null }],
    ["a: 2.1.0\nb: v1\nc: http://x.y/z", { a: "2.1.0", b: "v1", c: "http://x.y/z" }],
    ["a: [x, 'y z', 3]\nb: []", { a: ["x", "y z", 3], b: [] }],
    ["tools:\n  - Read\n  - 'Bash(git:*)'\nx: 1", { tools: ["Read", "Bash(git:*)"], x: 1 }],
    ["tools:\n- a\n- b", { tools: ["a", "b"] }],
    ["d: |\n  line one\n    indented\n\n  three\nn: 1", { d: "line one\n  indented\n\nthree\n", n: 1 }],
    ["d: >-\n  folded\n  text\n\n  para\n", { d: "folded text\npara" }],
    ["d: |+\n  keep\n\n", { d: "keep\n\n\n" }],
    ["d: long plain\n  continued here\nn: x", { d: "long plain continued here", n: "x" }],
    ["# comment\nname: a\n\n", { name: "a" }],
    ["", {}],
  ];
  for (const [yaml, expected] of cases) assert.deepEqual(read(yaml), expected, yaml);
  const nested = readFrontmatter('---\nmetadata:\n  version: "1.0"\n  team:\n    lead: ann\n---\n');
  assert.ok(nested.ok);
  assert.deepEqual(JSON.parse(JSON.stringify(nested.frontmatter)), { metadata: { version: "1.0", team: { lead: "ann" } } });
  assert.equal(readFrontmatter("\uFEFF---\r\nname: a\r\n---\r\nrest").ok, true);
});

test("SK-06: a key such as __proto__ is data in a null-prototype object, never a prototype", () => {
  const reading = readFrontmatter('---\n__proto__: x\n"constructor": z\n---\n');
  assert.ok(reading.ok);
  assert.equal(Object.getPrototypeOf(reading.frontmatter), null);
  assert.equal(JSON.stringify(reading.frontmatter), '{"__proto__":"x","constructor":"z"}');
});

test("SK-06: what the subset does not read, or YAML readers read differently, is refused with its line", () => {
  const refused: [string, RegExp][] = [
    ["a: &x 1", /line 1.*anchor/],
    ["a: *x", /anchor, alias/],
    ["a: !!str 1", /tag/],
    ["a: {b: 1}", /flow mapping/],
    ["a: yes", /reader reads alike/],
    ["a: 0x1F", /reader reads alike/],
    ["a: 1e3", /reader reads alike/],
    ["a: 2024-01-01", /reader reads alike/],
    ["a: 012", /reader reads alike/],
    ["a: .inf", /reader reads alike/],
    ["a: 12345678901234567890", /exactly/],
    ["a: b: c", /without ": "/],
    ["a: 1\na: 2", /line 2.*each key once/],
    ['a: "open', /end on its line/],
    ['a: "\\q"', /escape/],
    ["a:\n\t- x", /tab/],
    ["  a: 1", /column 1/],
    ["a: 1\n  b: 2", /line 2/],
    ["a:\n  - [x, [y]]", /nested flow/],
    ["a:\n  - b: c", /scalar/],
    ["a: |2\n  x", /indentation indicators/],
    ["a: >\n  x\n    more", /more-indented/],
    ["? a\n: b", /key: value/],
    ["a: [x, y", /ends on its line/],
    ["a: x\n\n  y", /blank lines|indentation/],
    ["a:\n b:\n  c:\n   d:\n    e:\n     f: 1", /nested at most/],
  ];
  for (const [yaml, pattern] of refused) {
    const result = read(yaml);
    assert.equal(typeof result, "string", `${yaml} was read as ${JSON.stringify(result)}`);
    assert.match(result as string, pattern, yaml);
  }
  assert.match(String((readFrontmatter("no block") as { problem: string }).problem), /begin with a ---/);
  assert.match(String((readFrontmatter("---\nname: a\n") as { problem: string }).problem), /closing/);
});
