// The prose cut of bench/size-bounds.ts (npm run bench:bounds): it must empty the text of error
// sentences, in strings and in every part of a template, and nothing else, or the bounds it
// prints would read smaller or larger than the cut could make them.

import assert from "node:assert/strict";
import { test } from "node:test";
import { transformSync } from "esbuild";
import { withoutProse } from "../../bench/size-bounds.js";

test("the prose cut empties sentences in strings and template parts and keeps substitutions, names, regular expressions and division", () => {
  const code = [
    'throw local("TK-08", "a task for tool with taskSupport required", "tools/list");',
    "const got = `expected ${want} but got ${describe(`the value ${v} of ${name}`)}`;",
    "const quoted = /\"[a-z ]+\"/.test(text) ? ratio / 2 / 3 : 'one two three';",
    "const url = 'https://example.com/a b';",
  ].join("\n");
  assert.equal(
    withoutProse(code),
    [
      'throw local("TK-08", "", "tools/list");',
      // " of " is shorter than a sentence (isProse: 6 characters at least) and stays.
      "const got = `${want}${describe(`${v} of ${name}`)}`;",
      "const quoted = /\"[a-z ]+\"/.test(text) ? ratio / 2 / 3 : '';",
      "const url = '';",
    ].join("\n"),
  );
  transformSync(withoutProse(code), { loader: "js" });
});

test("the prose cut leaves code without sentences as it is", () => {
  const code = 'export const methods = ["tools/list", "prompts/get"];\nconst pattern = /^ +$/g, half = size / 2;';
  assert.equal(withoutProse(code), code);
});
