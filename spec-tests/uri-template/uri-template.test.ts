// URI templates (lib/uri-template/template.ts): RFC 6570 section 3.2 expansion examples for
// every operator and level, match round trips for MCP-style templates, the documented
// rules for ambiguous splits, non-matching URIs, malformed templates (each naming its
// position), and adversarial URIs of 100 KB and 1 MB that would make a backtracking regex
// matcher run for minutes. Those are not timed assertions: a quadratic matcher would hit
// the test run's timeout, which is the signal; timings are printed as diagnostics.

import { test } from "node:test";
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { parseTemplate, UriTemplateError, type UriTemplateVariables } from "../../lib/uri-template/template.js";

// The variables of RFC 6570 section 3.2 (associative arrays are not supported: `keys` is left out).
const RFC_VARS: UriTemplateVariables = {
  count: ["one", "two", "three"],
  dom: ["example", "com"],
  dub: "me/too",
  hello: "Hello World!",
  half: "50%",
  var: "value",
  who: "fred",
  base: "http://example.com/home/",
  path: "/foo/bar",
  list: ["red", "green", "blue"],
  v: "6",
  x: "1024",
  y: "768",
  empty: "",
  empty_list: [],
  undef: undefined,
};

const RFC_EXAMPLES: ReadonlyArray<readonly [string, string]> = [
  // 3.2.1 variable expansion
  ["{count}", "one,two,three"],
  ["{count*}", "one,two,three"],
  ["{/count}", "/one,two,three"],
  ["{/count*}", "/one/two/three"],
  ["{;count}", ";count=one,two,three"],
  ["{;count*}", ";count=one;count=two;count=three"],
  ["{?count}", "?count=one,two,three"],
  ["{?count*}", "?count=one&count=two&count=three"],
  ["{&count*}", "&count=one&count=two&count=three"],
  // 3.2.2 simple string expansion (level 1)
  ["{var}", "value"],
  ["{hello}", "Hello%20World%21"],
  ["{half}", "50%25"],
  ["O{empty}X", "OX"],
  ["O{undef}X", "OX"],
  ["{x,y}", "1024,768"],
  ["{x,hello,y}", "1024,Hello%20World%21,768"],
  ["?{x,empty}", "?1024,"],
  ["?{x,undef}", "?1024"],
  ["?{undef,y}", "?768"],
  ["{var:3}", "val"],
  ["{var:30}", "value"],
  ["{list}", "red,green,blue"],
  ["{list*}", "red,green,blue"],
  ["O{empty_list}X", "OX"],
  // 3.2.3 reserved expansion (level 2)
  ["{+var}", "value"],
  ["{+hello}", "Hello%20World!"],
  ["{+half}", "50%25"],
  ["{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"],
  ["{+base}index", "http://example.com/home/index"],
  ["O{+empty}X", "OX"],
  ["O{+undef}X", "OX"],
  ["{+path}/here", "/foo/bar/here"],
  ["here?ref={+path}", "here?ref=/foo/bar"],
  ["up{+path}{var}/here", "up/foo/barvalue/here"],
  ["{+x,hello,y}", "1024,Hello%20World!,768"],
  ["{+path,x}/here", "/foo/bar,1024/here"],
  ["{+path:6}/here", "/foo/b/here"],
  ["{+list}", "red,green,blue"],
  ["{+list*}", "red,green,blue"],
  // 3.2.4 fragment expansion (level 2)
  ["{#var}", "#value"],
  ["{#hello}", "#Hello%20World!"],
  ["{#half}", "#50%25"],
  ["foo{#empty}", "foo#"],
  ["foo{#undef}", "foo"],
  ["{#x,hello,y}", "#1024,Hello%20World!,768"],
  ["{#path,x}/here", "#/foo/bar,1024/here"],
  ["{#path:6}/here", "#/foo/b/here"],
  ["{#list}", "#red,green,blue"],
  ["{#list*}", "#red,green,blue"],
  // 3.2.5 label expansion with dot-prefix (level 3)
  ["{.who}", ".fred"],
  ["{.who,who}", ".fred.fred"],
  ["{.half,who}", ".50%25.fred"],
  ["www{.dom*}", "www.example.com"],
  ["X{.var}", "X.value"],
  ["X{.empty}", "X."],
  ["X{.undef}", "X"],
  ["X{.var:3}", "X.val"],
  ["X{.list}", "X.red,green,blue"],
  ["X{.list*}", "X.red.green.blue"],
  // 3.2.6 path segment expansion (level 3)
  ["{/who}", "/fred"],
  ["{/who,who}", "/fred/fred"],
  ["{/half,who}", "/50%25/fred"],
  ["{/who,dub}", "/fred/me%2Ftoo"],
  ["{/var}", "/value"],
  ["{/var,empty}", "/value/"],
  ["{/var,undef}", "/value"],
  ["{/var,x}/here", "/value/1024/here"],
  ["{/var:1,var}", "/v/value"],
  ["{/list}", "/red,green,blue"],
  ["{/list*}", "/red/green/blue"],
  ["{/list*,path:4}", "/red/green/blue/%2Ffoo"],
  // 3.2.7 path-style parameter expansion (level 3)
  ["{;who}", ";who=fred"],
  ["{;half}", ";half=50%25"],
  ["{;empty}", ";empty"],
  ["{;v,empty,who}", ";v=6;empty;who=fred"],
  ["{;v,bar,who}", ";v=6;who=fred"],
  ["{;x,y}", ";x=1024;y=768"],
  ["{;x,y,empty}", ";x=1024;y=768;empty"],
  ["{;x,y,undef}", ";x=1024;y=768"],
  ["{;hello:5}", ";hello=Hello"],
  ["{;list}", ";list=red,green,blue"],
  ["{;list*}", ";list=red;list=green;list=blue"],
  // 3.2.8 form-style query expansion (level 3)
  ["{?who}", "?who=fred"],
  ["{?half}", "?half=50%25"],
  ["{?x,y}", "?x=1024&y=768"],
  ["{?x,y,empty}", "?x=1024&y=768&empty="],
  ["{?x,y,undef}", "?x=1024&y=768"],
  ["{?var:3}", "?var=val"],
  ["{?list}", "?list=red,green,blue"],
  ["{?list*}", "?list=red&list=green&list=blue"],
  // 3.2.9 form-style query continuation (level 3)
  ["{&who}", "&who=fred"],
  ["{&half}", "&half=50%25"],
  ["?fixed=yes{&x}", "?fixed=yes&x=1024"],
  ["{&x,y,empty}", "&x=1024&y=768&empty="],
  ["{&var:3}", "&var=val"],
  ["{&list}", "&list=red,green,blue"],
  ["{&list*}", "&list=red&list=green&list=blue"],
];

test("RFC 6570 section 3.2 examples expand as the RFC shows", () => {
  for (const [template, expected] of RFC_EXAMPLES) {
    assert.equal(parseTemplate(template).expand(RFC_VARS), expected, template);
  }
});

test("RFC 6570 section 1.2 level examples", () => {
  const vars: UriTemplateVariables = {
    var: "value",
    hello: "Hello World!",
    path: "/foo/bar",
    x: "1024",
    y: "768",
    empty: "",
    list: ["red", "green", "blue"],
  };
  const rows: ReadonlyArray<readonly [string, string]> = [
    ["{var}", "value"],
    ["{hello}", "Hello%20World%21"],
    ["{+var}", "value"],
    ["{+hello}", "Hello%20World!"],
    ["{+path}/here", "/foo/bar/here"],
    ["here?ref={+path}", "here?ref=/foo/bar"],
    ["X{#var}", "X#value"],
    ["X{#hello}", "X#Hello%20World!"],
    ["map?{x,y}", "map?1024,768"],
    ["{x,hello,y}", "1024,Hello%20World%21,768"],
    ["{+x,hello,y}", "1024,Hello%20World!,768"],
    ["{+path,x}/here", "/foo/bar,1024/here"],
    ["{#x,hello,y}", "#1024,Hello%20World!,768"],
    ["{#path,x}/here", "#/foo/bar,1024/here"],
    ["X{.var}", "X.value"],
    ["X{.x,y}", "X.1024.768"],
    ["{/var}", "/value"],
    ["{/var,x}/here", "/value/1024/here"],
    ["{;x,y}", ";x=1024;y=768"],
    ["{;x,y,empty}", ";x=1024;y=768;empty"],
    ["{?x,y}", "?x=1024&y=768"],
    ["{?x,y,empty}", "?x=1024&y=768&empty="],
    ["?fixed=yes{&x}", "?fixed=yes&x=1024"],
    ["{&x,y,empty}", "&x=1024&y=768&empty="],
    ["{var:3}", "val"],
    ["{var:30}", "value"],
    ["{list}", "red,green,blue"],
    ["{list*}", "red,green,blue"],
    ["{/list}", "/red,green,blue"],
    ["{/list*}", "/red/green/blue"],
    ["{/list*,path:4}", "/red/green/blue/%2Ffoo"],
    ["{?list}", "?list=red,green,blue"],
    ["{?list*}", "?list=red&list=green&list=blue"],
  ];
  for (const [template, expected] of rows) assert.equal(parseTemplate(template).expand(vars), expected, template);
});

test("expansion encodes UTF-8 with upper-case hex, keeps triplets only for + and #, and encodes lone surrogates as U+FFFD", () => {
  assert.equal(parseTemplate("{x}").expand({ x: "ü€😀" }), "%C3%BC%E2%82%AC%F0%9F%98%80");
  assert.equal(parseTemplate("{+x}").expand({ x: "a%2Fb%zz" }), "a%2Fb%25zz");
  assert.equal(parseTemplate("{x}").expand({ x: "a%2Fb" }), "a%252Fb");
  assert.equal(parseTemplate("{x}").expand({ x: "\ud800" }), "%EF%BF%BD");
  assert.equal(parseTemplate("{x:2}").expand({ x: "😀😀😀" }), "%F0%9F%98%80%F0%9F%98%80", "a prefix counts code points");
  assert.equal(parseTemplate("a b{x}").expand({ x: "1" }), "a%20b1", "literal characters outside the URI sets are encoded");
  assert.equal(parseTemplate("{x}").expand({ x: ["a", undefined as unknown as string, "b"] }), "a,b", "undefined list members are skipped");
  assert.equal(parseTemplate("{n}").expand({ n: 42 as unknown as string }), "42", "a number from JavaScript is converted");
});

test("variable names are read as own properties only", () => {
  const t = parseTemplate("x/{constructor}/{__proto__}{?toString}");
  assert.deepEqual(t.variableNames, ["constructor", "__proto__", "toString"]);
  assert.equal(t.expand({}), "x//");
  const uri = t.expand(JSON.parse('{"constructor":"c","__proto__":"p","toString":"s"}') as UriTemplateVariables);
  assert.equal(uri, "x/c/p?toString=s");
  const m = t.match(uri);
  assert.ok(m !== undefined);
  assert.deepEqual(Object.keys(m), ["constructor", "__proto__", "toString"]);
  assert.equal(m["__proto__"], "p");
  assert.equal(Object.getPrototypeOf(m), Object.prototype);
});

test("variableNames lists each name once, in order of first appearance", () => {
  assert.deepEqual(parseTemplate("users/{user}/posts{?page,limit}").variableNames, ["user", "page", "limit"]);
  assert.deepEqual(parseTemplate("{a}{/b,a}{?c*,b:3}").variableNames, ["a", "b", "c"]);
  assert.deepEqual(parseTemplate("plain://text").variableNames, []);
  assert.equal(String(parseTemplate("a{b}")), "a{b}");
});

// ---------------------------------------------------------------------------------------
// Matching.

function roundTrip(template: string, vars: Record<string, string | string[]>, expectedUri?: string): void {
  const t = parseTemplate(template);
  const uri = t.expand(vars);
  if (expectedUri !== undefined) assert.equal(uri, expectedUri, template);
  assert.deepEqual(t.match(uri), vars, `${template} -> ${uri}`);
}

test("match round trips: MCP-style templates", () => {
  roundTrip("test://template/{id}/data", { id: "123" }, "test://template/123/data");
  roundTrip("test://template/{id}/data", { id: "a b/c?d#e" }, "test://template/a%20b%2Fc%3Fd%23e/data");
  roundTrip("test://template/{id}/data", { id: "ünï😀" });
  roundTrip("file:///{path}", { path: "dir/file.txt" }, "file:///dir%2Ffile.txt");
  roundTrip("file:///{+path}", { path: "dir/sub/file.txt" }, "file:///dir/sub/file.txt");
  roundTrip("users/{user}/posts{?page,limit}", { user: "alice", page: "2", limit: "10" }, "users/alice/posts?page=2&limit=10");
  roundTrip("users/{user}/posts{?page,limit}", { user: "bob" }, "users/bob/posts");
  roundTrip("users/{user}/posts{?page,limit}", { user: "carol", limit: "5" }, "users/carol/posts?limit=5");
  roundTrip("users/{user}/posts{?page,limit}", { user: "d&e", page: "a=b" }, "users/d%26e/posts?page=a%3Db");
  roundTrip("{/segments*}", { segments: ["a", "b", "c"] }, "/a/b/c");
  roundTrip("{/segments*}", { segments: ["only"] }, "/only");
  roundTrip("{/segments*}", { segments: ["a/b", "c d"] }, "/a%2Fb/c%20d");
  roundTrip("repo{#section}", { section: "intro" }, "repo#intro");
  roundTrip("repo{#section}", { section: "a/b?c" }, "repo#a/b?c");
  roundTrip("repo{#section}", {}, "repo");
  roundTrip("github://repos/{owner}/{repo}/contents/{+path}", { owner: "o", repo: "r", path: "src/index.ts" });
  roundTrip("db://{table}{?where*}", { table: "t", where: ["a", "b"] }, "db://t?where=a&where=b");
  roundTrip("{;x,y}", { x: "1024", y: "768" });
  roundTrip("X{.x,y}", { x: "1024", y: "768" });
  roundTrip("{x,y}", { x: "1024", y: "768" });
  roundTrip("search{?q,tags}", { q: "mcp engine", tags: ["a", "b"] }, "search?q=mcp%20engine&tags=a,b");
});

test("match round trips: RFC examples whose expansion is unambiguous", () => {
  const vars = RFC_VARS as Record<string, string | string[]>;
  const pick = (...names: string[]): Record<string, string | string[]> =>
    Object.fromEntries(names.map((n) => [n, vars[n] as string | string[]]));
  roundTrip("{count}", pick("count"));
  roundTrip("{/count*}", pick("count"));
  roundTrip("{;count*}", pick("count"));
  roundTrip("{?count*}", pick("count"));
  roundTrip("{&count*}", pick("count"));
  roundTrip("{hello}", pick("hello"));
  roundTrip("{half}", pick("half"));
  roundTrip("{x,hello,y}", pick("x", "hello", "y"));
  roundTrip("{+base}index", pick("base"));
  roundTrip("{base}index", pick("base"));
  roundTrip("{+path}/here", pick("path"));
  roundTrip("here?ref={+path}", pick("path"));
  roundTrip("{#var}", pick("var"));
  roundTrip("www{.dom*}", pick("dom"));
  roundTrip("{/who,dub}", pick("who", "dub"));
  roundTrip("{/list*,path:4}", { list: ["red", "green", "blue"], path: "/foo" });
  roundTrip("{;v,empty,who}", pick("v", "empty", "who"));
  roundTrip("{?x,y,empty}", pick("x", "y", "empty"));
  roundTrip("?fixed=yes{&x}", pick("x"));
  roundTrip("{&list*}", pick("list"));
  roundTrip("X{.empty}", pick("empty"));
  roundTrip("{;list}", pick("list"));
});

test("match: groups take the longest span that lets the rest match (greedy, never backtracking)", () => {
  assert.deepEqual(parseTemplate("file:///{+dir}/{name}").match("file:///a/b/c.txt"), { dir: "a/b", name: "c.txt" });
  assert.deepEqual(parseTemplate("{+path}/data").match("x/data/y/data"), { path: "x/data/y" });
  assert.deepEqual(parseTemplate("{name}-{version}").match("my-pkg-1.0"), { name: "my-pkg", version: "1.0" });
  // A simple variable cannot hold "/" (it would have been %2F), so the split is forced.
  assert.deepEqual(parseTemplate("{a}/{+b}").match("x/y/z"), { a: "x", b: "y/z" });
});

test("match: adjacent expressions split at the next expression's leading character", () => {
  assert.deepEqual(parseTemplate("{/segments*}{?q}").match("/a/b?q=1"), { segments: ["a", "b"], q: "1" });
  assert.deepEqual(parseTemplate("{/segments*}{?q}").match("?q=1"), { q: "1" });
  assert.deepEqual(parseTemplate("{/segments*}{?q}").match("/a"), { segments: ["a"] });
  assert.deepEqual(parseTemplate("{+path}{?v}").match("a/b?v=2"), { path: "a/b", v: "2" });
  assert.deepEqual(parseTemplate("{+path}{#frag}").match("a/b#top"), { path: "a/b", frag: "top" });
  assert.deepEqual(parseTemplate("{a}{/b}").match("x/y"), { a: "x", b: "y" });
  // Named continuation: a piece stays with the first expression while its name is one of its variables.
  assert.deepEqual(parseTemplate("{?x,y}{&z}").match("?x=1&y=2&z=3"), { x: "1", y: "2", z: "3" });
  assert.deepEqual(parseTemplate("{?a}{&b}").match("?a=1&b=2"), { a: "1", b: "2" });
  // No leading character to split on: the first expression takes everything it can produce.
  assert.deepEqual(parseTemplate("{a}{b}").match("xy"), { a: "xy" });
  assert.deepEqual(parseTemplate("{a}{+b}").match("x/y"), { a: "x", b: "/y" });
  assert.deepEqual(parseTemplate("up{+path}{var}/here").match("up/foo/barvalue/here"), { path: "/foo/barvalue" });
});

test("match: values are percent-decoded; a raw comma makes a list except under + and #", () => {
  assert.deepEqual(parseTemplate("x/{v}").match("x/a%2Cb"), { v: "a,b" });
  assert.deepEqual(parseTemplate("x/{v}").match("x/a,b"), { v: ["a", "b"] });
  assert.deepEqual(parseTemplate("x/{+v}").match("x/a,b"), { v: "a,b" });
  assert.deepEqual(parseTemplate("x/{v}").match("x/%E2%82%AC%20%zz%"), { v: "€ %zz%" });
  assert.deepEqual(parseTemplate("x/{v}").match("x/%FF"), { v: "\ufffd" }, "invalid UTF-8 decodes to U+FFFD");
  assert.deepEqual(parseTemplate("x/{v}").match("x/ü raw"), { v: "ü raw" }, "raw Unicode and spaces are accepted");
  assert.deepEqual(parseTemplate("{?q}").match("?q"), { q: "" }, "a bare name in a query is an empty value");
  assert.deepEqual(parseTemplate("{?q}").match("?q=a=b"), { q: "a=b" });
  assert.deepEqual(parseTemplate("{?y,x}").match("?x=1&y=2"), { x: "1", y: "2" }, "named pieces in any order");
  assert.deepEqual(parseTemplate("X{.name}").match("X.file.tar.gz"), { name: "file.tar.gz" }, "'.' is also a value character");
  assert.deepEqual(parseTemplate("{var:3}/{var}").match("val/value"), { var: "value" }, "a full occurrence wins over a prefix");
  assert.deepEqual(parseTemplate("test://template/{id}/data").match("test://template//data"), {}, "an empty simple value is undefined");
  assert.deepEqual(parseTemplate("{x:2}").match("%F0%9F%98%80%F0%9F%98%80"), { x: "😀😀" }, "a prefix counts code points");
  assert.equal(parseTemplate("{x:2}").match("%F0%9F%98%80%F0%9F%98%80%F0%9F%98%80"), undefined);
  assert.deepEqual(parseTemplate("{/a,list*}").match("/x/r/g"), { a: "x", list: ["r", "g"] });
  assert.deepEqual(parseTemplate("{/a,b,list*}").match("/x"), { a: "x" }, "too few pieces: later variables are undefined");
  assert.deepEqual(parseTemplate("{/list*,b,c}").match("/x/y"), { list: ["x"], b: "y" }, "an exploded variable takes at least one piece");
  assert.deepEqual(parseTemplate("{/list*,rest*}").match("/a/b/c"), { list: ["a", "b"], rest: ["c"] });
});

test("match: URIs that are not expansions of the template give undefined", () => {
  const t = parseTemplate("test://template/{id}/data");
  assert.equal(t.match("test://template/1/2/data"), undefined, "a simple value cannot hold '/'");
  assert.equal(t.match("test://other/1/data"), undefined);
  assert.equal(t.match("test://template/1/datum"), undefined);
  assert.equal(t.match("test://template/1/data/"), undefined);
  assert.equal(t.match("test://template/1"), undefined);
  assert.equal(t.match(""), undefined);
  const q = parseTemplate("users/{user}/posts{?page,limit}");
  assert.equal(q.match("users/a/posts?foo=1"), undefined, "unknown query parameter");
  assert.equal(q.match("users/a/posts?page=1&page=2"), undefined, "a repeated non-exploded parameter");
  assert.equal(q.match("users/a/posts?page=1?limit=2"), undefined);
  assert.equal(q.match("users/a/posts?"), undefined);
  assert.equal(q.match("users/a/posts/x"), undefined);
  assert.equal(parseTemplate("X{.var:3}").match("X.value"), undefined, "longer than the prefix");
  assert.equal(parseTemplate("{/a}").match("/x/y"), undefined, "a raw '/' inside a non-exploded path segment");
  assert.equal(parseTemplate("plain").match("plainx"), undefined);
  assert.deepEqual(parseTemplate("plain").match("plain"), {});
  assert.equal(parseTemplate("a{x}b{y}c").match("ac"), undefined);
  assert.equal(parseTemplate("ab{x}ba").match("aba"), undefined, "first and last literals may not overlap");
  assert.deepEqual(parseTemplate("ab{x}ba").match("abba"), {});
});

test("malformed templates throw a UriTemplateError naming the position", () => {
  const cases: ReadonlyArray<readonly [string, number, RegExp]> = [
    ["abc{def", 3, /never closed/],
    ["{a}{b", 3, /never closed/],
    ["x{}", 1, /empty expression/],
    ["a}b", 1, /'}' without a matching '{'/],
    ["{a{b}}", 2, /inside an expression/],
    ["{$x}", 1, /unknown operator "\$"/],
    ["{-x}", 1, /unknown operator "-"/],
    ["{=x}", 1, /reserved/],
    ["{|x}", 1, /reserved/],
    ["{x-y}", 2, /invalid character "-"/],
    ["{x y}", 2, /invalid character " "/],
    ["{x,}", 3, /empty variable name/],
    ["{,x}", 1, /operator ',' is reserved/],
    ["{x,,y}", 3, /empty variable name/],
    ["{+}", 1, /no variable/],
    ["{?a,,b}", 4, /empty variable name/],
    ["{.x.}", 3, /may not end with '.'/],
    ["{a..b}", 3, /between two name characters/],
    ["{%zz}", 1, /%XX escape/],
    ["{x:0}", 3, /1 to 9999/],
    ["{x:10000}", 3, /1 to 9999/],
    ["{x:}", 3, /1 to 9999/],
    ["{x:3*}", 3, /1 to 9999/],
    ["{x*3}", 3, /after the explode modifier/],
    ["{:3}", 1, /unknown operator ":"/],
    ["{/:3}", 2, /empty variable name/],
  ];
  for (const [template, position, reason] of cases) {
    assert.throws(
      () => parseTemplate(template),
      (error: unknown) => {
        assert.ok(error instanceof UriTemplateError, template);
        assert.ok(error instanceof Error);
        assert.equal(error.position, position, `${template}: ${error.message}`);
        assert.match(error.message, new RegExp(`position ${position}\\b`));
        assert.match(error.message, reason);
        return true;
      },
      template,
    );
  }
  // Valid edge cases.
  for (const ok of ["{a.b}", "{%41}", "{_}", "{x:9999}", "{x*}", "{a,b*,c:2}", "%7B{x}", "a?b=c&d{&e}"])
    assert.doesNotThrow(() => parseTemplate(ok), ok);
});

// ---------------------------------------------------------------------------------------
// Adversarial inputs.

function timed<T>(run: () => T): { result: T; ms: number } {
  const start = performance.now();
  const result = run();
  return { result, ms: performance.now() - start };
}

for (const size of [100_000, 1_000_000]) {
  const label = size >= 1_000_000 ? "1 MB" : "100 KB";

  test(`adversarial ${label}: 20 expressions separated by '-' against a URI of dashes`, (t) => {
    // The regex ^x([^/,?]+)-([^/,?]+)-...y$ backtracks through every way of placing the
    // 19 dashes before failing on the final "!".
    const names = Array.from({ length: 20 }, (_, i) => `v${i}`);
    const template = parseTemplate(`x${names.map((n) => `{${n}}`).join("-")}y`);
    const failing = timed(() => template.match(`x${"-".repeat(size)}!y`));
    assert.equal(failing.result, undefined);
    // And a matching one: greedy, so v0 takes everything but one piece per other variable.
    const half = size / 2;
    const matching = timed(() => template.match(`x${"a-".repeat(half)}ay`));
    const expected: Record<string, string> = { v0: `${"a-".repeat(half - 19)}a` };
    for (let i = 1; i < 20; i++) expected[`v${i}`] = "a";
    assert.deepEqual(matching.result, expected);
    t.diagnostic(`no match ${failing.ms.toFixed(1)} ms, match ${matching.ms.toFixed(1)} ms`);
  });

  test(`adversarial ${label}: exploded list of empty members (the SDK's ReDoS shape)`, (t) => {
    // The regex ([^/]+(?:,[^/]+)*) is exponential on ",,,,...,/".
    const template = parseTemplate("items/{ids*}/end");
    const failing = timed(() => template.match(`items/${",".repeat(size)}/x/end`));
    assert.equal(failing.result, undefined);
    const matching = timed(() => template.match(`items/${"a,".repeat(size / 2)}b/end`));
    const ids = matching.result?.ids;
    assert.ok(Array.isArray(ids));
    assert.equal(ids.length, size / 2 + 1);
    assert.equal(ids[ids.length - 1], "b");
    t.diagnostic(`no match ${failing.ms.toFixed(1)} ms, match ${matching.ms.toFixed(1)} ms`);
  });

  test(`adversarial ${label}: reserved expressions around a repeated literal`, (t) => {
    // {+a}/{+b}/... accepts "/" inside values, so every "/" is a candidate split point: the
    // regex (.+)/(.+)/.../(.+)\.end$ tries O(n^7) placements before failing for lack of a
    // seventh "/".
    const template = parseTemplate("r:{+a}/{+b}/{+c}/{+d}/{+e}/{+f}/{+g}/{+h}.end");
    const failing = timed(() => template.match(`r:${"/".repeat(5)}${"a".repeat(size)}.end`));
    assert.equal(failing.result, undefined);
    const matching = timed(() => template.match(`r:${"/".repeat(size)}.end`));
    assert.deepEqual(matching.result, { a: "/".repeat(size - 7) });
    const third = Math.floor(size / 3);
    const encoded = timed(() => parseTemplate("q{?a,b}").match(`q?a=${"%41".repeat(third)}&b=%E2%82%AC`));
    assert.equal(encoded.result?.a, "A".repeat(third));
    assert.equal(encoded.result?.b, "€");
    t.diagnostic(`no match ${failing.ms.toFixed(1)} ms, match ${matching.ms.toFixed(1)} ms, decode ${encoded.ms.toFixed(1)} ms`);
  });
}
