// Peer bundles carry only what they use (bench/bundle-size.ts measures them, `npm run bench:size`):
// a Server with one plain tool bundles no task code, no cursor sealing and no hashing; a Client
// connected over HTTP without auth bundles no OAuth; and each stays under its ceiling, minified
// and gzipped. The ceilings sit a little above today's sizes so that growth is caught; the
// targets (Server + one tool 40 KB, Client 30 KB) are printed beside them.
// The controls show the module checks can fail: the same entries with the feature used do pull it.
// The module checks bundle the compiled modules the package's files are made of (a shipped chunk
// holds several); the budgets bundle the package's files, and an app tree-shakes those as well as
// the modules (checked: the two sizes agree within 1 KB).

import assert from "node:assert/strict";
import { test } from "node:test";
import { CLIENT, CONNECT_HTTP, ROOT, SERVER_ONE_TOOL, measureBundle, type BundleEntry } from "../../bench/bundle-size.js";

const KB = 1024;

/** Today's sizes plus about 1 KB: the bundle must not grow past them. */
const CEILINGS = new Map<BundleEntry, { ceiling: number; target?: number }>([
  [SERVER_ONE_TOOL, { ceiling: 54.5 * KB, target: 40 * KB }],
  [CLIENT, { ceiling: 42.5 * KB, target: 30 * KB }],
  [CONNECT_HTTP, { ceiling: 53 * KB }],
]);

/** The package's modules (paths under dist/lib/, which the package's files are bundled from) that went into a bundle of `entry`. */
function modulesOf(entry: BundleEntry): string[] {
  const inputs = Object.values(measureBundle(entry, "modules").metafile.outputs)[0]!.inputs;
  return Object.entries(inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path.replace(/^.*?dist\/lib\//, ""));
}

const TASKS = /^peer\/server\/task-(server|support|store)\.js$/;
const SEALING = /^(codec\/(sha256|pagination)\.js|peer\/server\/round-sealing\.js)$/;
// uri-reference.js is RFC 3986 resolution (the JSON Schema validator's $ref), not RFC 6570 templates.
const TEMPLATES = /^uri-template\/(template|match)\.js$/;
// The transport's own use of lib/auth (a 401's WWW-Authenticate challenge parsed for its report, URLs
// parsed for redirects) stays; the flow, its metadata discovery and its client do not.
const OAUTH = /^(auth\/(?!challenge\.js$|encoding\.js$)|http-client\/(oauth|http-oauth)\.js$)/;

for (const [entry, { ceiling, target }] of CEILINGS) {
  test(`budget: ${entry.name}, minified and gzipped, stays under ${ceiling / KB} KB`, (t) => {
    const size = measureBundle(entry);
    t.diagnostic(
      `${entry.name}: ${(size.gzip / KB).toFixed(1)} KB gzip (${(size.minified / KB).toFixed(1)} KB minified), ceiling ${ceiling / KB} KB${target === undefined ? "" : `, target ${target / KB} KB`}`,
    );
    assert.ok(size.gzip <= ceiling, `${entry.name}: ${(size.gzip / KB).toFixed(1)} KB gzip, ceiling ${ceiling / KB} KB`);
    const fromModules = measureBundle(entry, "modules");
    assert.ok(
      size.gzip <= fromModules.gzip + KB,
      `${entry.name}: ${size.gzip} bytes gzip from the package's files, ${fromModules.gzip} from its modules: the bundled package defeats tree-shaking`,
    );
  });
}

test("a Server with one plain tool bundles no tasks, URI templates, cursor sealing or hashing; with serveTasks, parseTemplate, Paginator and sealedRounds it does", () => {
  const plain = modulesOf(SERVER_ONE_TOOL);
  assert.deepEqual(
    plain.filter((path) => TASKS.test(path) || SEALING.test(path) || TEMPLATES.test(path)),
    [],
  );
  const used = modulesOf({
    name: "Server with every option",
    source: SERVER_ONE_TOOL.source
      .replace("import { Server }", "import { Paginator, Server, parseTemplate, sealedRounds, serveTasks }")
      .replace(
        '{ info: { name: "s", version: "1.0.0" } }',
        '{ info: { name: "s", version: "1.0.0" }, tasks: serveTasks({ newTaskId: () => "t" }), paging: new Paginator({ secret: new Uint8Array(32) }), inputRounds: sealedRounds({ secret: new Uint8Array(32) }) }',
      )
      .concat('\nserver.resourceTemplate(parseTemplate("n://{x}"), { name: "n" }, (uri) => ({ contents: [{ uri, text: "" }] }));'),
  });
  for (const module of [
    "uri-template/template.js",
    "uri-template/match.js",
    "peer/server/task-server.js",
    "peer/server/task-support.js",
    "codec/sha256.js",
    "codec/pagination.js",
    "peer/server/round-sealing.js",
  ])
    assert.ok(used.includes(module), `${module} is bundled when its option is used`);
});

test("a Client bundles no skills reader (SKILL.md frontmatter, verification); with skillsClient it does", () => {
  const SKILLS = /^(skills\/(frontmatter|verify)\.js|peer\/client\/skills-client\.js)$/;
  assert.deepEqual(
    modulesOf(CLIENT).filter((path) => SKILLS.test(path)),
    [],
  );
  const used = modulesOf({
    name: "Client with skills",
    source: `import { skillsClient } from ${JSON.stringify(`${ROOT}/dist/package/peer/skills.js`)};\n${CLIENT.source.replace('return client.callTool("echo", { text: "hi" });', "return skillsClient(client).list();")}`,
  });
  for (const module of ["skills/frontmatter.js", "skills/verify.js", "peer/client/skills-client.js"])
    assert.ok(used.includes(module), `${module} is bundled with skillsClient`);
});

test("connectHttp without auth bundles no OAuth; with httpOAuth it does", () => {
  const plain = modulesOf(CONNECT_HTTP);
  assert.deepEqual(
    plain.filter((path) => OAUTH.test(path)),
    [],
  );
  const used = modulesOf({
    name: "connectHttp with auth",
    source: CONNECT_HTTP.source
      .replace("import { connectHttp }", "import { connectHttp, httpOAuth }")
      .replace(
        '{ url, info: { name: "c", version: "1.0.0" } }',
        '{ url, info: { name: "c", version: "1.0.0" }, auth: httpOAuth({ crypto: globalThis.crypto, now: () => Date.now() }) }',
      ),
  });
  for (const module of ["http-client/oauth.js", "auth/flow.js"]) assert.ok(used.includes(module), `${module} is bundled with httpOAuth`);
});
