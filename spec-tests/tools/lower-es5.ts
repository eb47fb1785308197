// Lowers the `class` syntax of an esbuild bundle (built with --target=es2020, so class fields,
// private members and static blocks are already lowered) to ES5 constructor functions, for
// engines without classes (Hermes 0.12). TypeScript 7 no longer emits ES5 (TS5108) and esbuild
// never lowered classes, so this does what TypeScript's ES5 emit did, the "loose" way:
//
//   class B extends A { constructor(x) { super(x); this.y = 1; } m() {} get g() {} static s() {} }
// becomes
//   (function (_super) { __extends(B, _super);
//     function B(x) { var _newTarget = this && this instanceof B ? this.constructor : void 0; var _this;
//       _this = _super.apply(this, [x]) || this; _this.y = 1; return _this; }
//     __method(B.prototype, "m", function () {}); __getter(B.prototype, "g", function () {}); __method(B, "s", function () {});
//     return B; })(A)
//
// so a subclass of Error gets the object `Error.apply` made, whose prototype is Error's: the class
// must restore its own (Object.setPrototypeOf(this, new.target.prototype)), exactly as under
// TypeScript's ES5 output. That is the point of the error-identity checks that use it.
//
// Invariants:
// - a construct this does not lower (super.member, a class field left by the bundler, an async
//   generator method) throws naming it, never passes through silently;
// - `this` in a derived constructor becomes `_this` outside nested functions and methods (arrow
//   functions keep it, as they keep `this`); `new.target` becomes `_newTarget`;
// - the output contains no `class` keyword (checked before returning).

export interface Token {
  readonly type: "ident" | "punct" | "string" | "template" | "regex" | "number";
  readonly value: string;
  readonly start: number;
  readonly end: number;
}

const KEYWORDS_BEFORE_EXPRESSION = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);
const CONTROL = new Set(["if", "for", "while", "switch", "catch", "with"]);

const isIdentStart = (c: string): boolean => /[A-Za-z_$#\\]/.test(c) || c.charCodeAt(0) >= 0x80;
const isIdentPart = (c: string): boolean => /[A-Za-z0-9_$#\\]/.test(c) || c.charCodeAt(0) >= 0x80;

/** Tokens of `src` from `from`, stopping after the token that closes the first brace opened (or at the end). */
export function tokenize(src: string, from = 0, stopAtBalance = false): Token[] {
  const tokens: Token[] = [];
  // A stack of open braces: "{" or "${" (the expression of a template literal).
  const braces: string[] = [];
  let opened = false;
  let i = from;
  const prev = (): Token | undefined => tokens[tokens.length - 1];
  const regexAllowed = (): boolean => {
    const p = prev();
    if (p === undefined) return true;
    if (p.type === "ident") return KEYWORDS_BEFORE_EXPRESSION.has(p.value);
    if (p.type === "punct") return p.value !== ")" && p.value !== "]" && p.value !== "++" && p.value !== "--";
    return false;
  };
  /** Scans template text from i (after "`" or the "}" that closes a "${"); pushes it; true when the template goes on with "${". */
  const templateText = (start: number): void => {
    let j = i;
    for (;;) {
      const c = src[j];
      if (c === undefined) throw new Error(`unterminated template literal at ${start}`);
      if (c === "\\") {
        j += 2;
        continue;
      }
      if (c === "`") {
        tokens.push({ type: "template", value: src.slice(start, j + 1), start, end: j + 1 });
        i = j + 1;
        return;
      }
      if (c === "$" && src[j + 1] === "{") {
        tokens.push({ type: "template", value: src.slice(start, j + 2), start, end: j + 2 });
        braces.push("${");
        i = j + 2;
        return;
      }
      j++;
    }
  };
  while (i < src.length) {
    if (stopAtBalance && opened && braces.length === 0) break;
    const c = src[i] as string;
    const start = i;
    if (c === " " || c === "\n" || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    if (c === "/" && src[i + 1] === "/") {
      const end = src.indexOf("\n", i);
      i = end < 0 ? src.length : end;
      continue;
    }
    if (c === "/" && src[i + 1] === "*") {
      const end = src.indexOf("*/", i + 2);
      if (end < 0) throw new Error(`unterminated comment at ${i}`);
      i = end + 2;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (src[j] !== c) {
        if (src[j] === undefined) throw new Error(`unterminated string at ${i}`);
        j += src[j] === "\\" ? 2 : 1;
      }
      tokens.push({ type: "string", value: src.slice(i, j + 1), start, end: j + 1 });
      i = j + 1;
      continue;
    }
    if (c === "`") {
      i++;
      templateText(start);
      continue;
    }
    if (c === "/" && regexAllowed()) {
      let j = i + 1;
      let inClass = false;
      while (src[j] !== "/" || inClass) {
        const d = src[j];
        if (d === undefined || d === "\n") throw new Error(`unterminated regular expression at ${i}`);
        if (d === "\\") j++;
        else if (d === "[") inClass = true;
        else if (d === "]") inClass = false;
        j++;
      }
      j++;
      while (j < src.length && isIdentPart(src[j] as string)) j++;
      tokens.push({ type: "regex", value: src.slice(i, j), start, end: j });
      i = j;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < src.length && isIdentPart(src[j] as string)) j++;
      tokens.push({ type: "ident", value: src.slice(i, j), start, end: j });
      i = j;
      continue;
    }
    if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(src[i + 1] ?? ""))) {
      let j = i + 1;
      while (j < src.length && /[0-9A-Za-z_.]/.test(src[j] as string)) {
        // An exponent's sign belongs to the number.
        if ((src[j] === "e" || src[j] === "E") && (src[j + 1] === "+" || src[j + 1] === "-") && !/^0[xX]/.test(src.slice(i, j))) j++;
        j++;
      }
      tokens.push({ type: "number", value: src.slice(i, j), start, end: j });
      i = j;
      continue;
    }
    const three = src.slice(i, i + 3);
    const two = src.slice(i, i + 2);
    const value =
      three === "..." ? three : ["=>", "?.", "++", "--"].includes(two) && !(two === "?." && /[0-9]/.test(src[i + 2] ?? "")) ? two : c;
    if (value === "{") {
      braces.push("{");
      opened = true;
    } else if (value === "}") {
      const top = braces.pop();
      if (top === "${") {
        i++;
        templateText(start);
        continue;
      }
    }
    tokens.push({ type: "punct", value, start, end: i + value.length });
    i += value.length;
  }
  return tokens;
}

/** The index of the token closing the bracket opened at `open`. */
function closing(tokens: readonly Token[], open: number): number {
  const pairs: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
  const stack: string[] = [];
  for (let k = open; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (t.type === "template") {
      if (t.value.startsWith("}")) stack.pop();
      if (t.value.endsWith("${")) stack.push("}");
      if (stack.length === 0) return k;
      continue;
    }
    if (t.type !== "punct") continue;
    const want = pairs[t.value];
    if (want !== undefined) stack.push(want);
    else if (t.value === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0) return k;
    }
  }
  throw new Error(`no closing bracket for ${tokens[open]?.value} at ${tokens[open]?.start}`);
}

interface Member {
  readonly kind: "constructor" | "method" | "get" | "set";
  readonly isStatic: boolean;
  /** The key as an expression: a string literal, or the computed expression's text. */
  readonly key: string;
  readonly prefix: "" | "async " | "*";
  readonly params: string;
  /** The body's text, braces included. */
  readonly body: string;
  readonly bodyStart: number;
}

const LOWERED_HELPERS = `var __extends = function (d, b) {
  Object.setPrototypeOf(d, b);
  d.prototype = Object.create(b === null ? null : b.prototype, { constructor: { value: d, writable: true, configurable: true } });
};
var __method = function (target, key, fn) {
  Object.defineProperty(target, key, { value: fn, writable: true, configurable: true, enumerable: false });
};
var __getter = function (target, key, fn) {
  Object.defineProperty(target, key, { get: fn, configurable: true, enumerable: false });
};
var __setter = function (target, key, fn) {
  Object.defineProperty(target, key, { set: fn, configurable: true, enumerable: false });
};
`;

/** `src` with every class lowered to ES5 constructor functions (helpers prepended). */
export function lowerClasses(src: string): string {
  const all = tokenize(src);
  const starts = all
    .filter((t, k) => t.type === "ident" && t.value === "class" && all[k - 1]?.value !== "." && all[k + 1]?.value !== ":")
    .map((t) => t.start);
  let out = src;
  for (let n = starts.length - 1; n >= 0; n--) out = lowerOne(out, starts[n] as number);
  if (
    tokenize(out).some(
      (t, k, list) => t.type === "ident" && t.value === "class" && list[k - 1]?.value !== "." && list[k + 1]?.value !== ":",
    )
  )
    throw new Error("a class survived lowering");
  return `${LOWERED_HELPERS}${out}`;
}

let counter = 0;

/** Lowers the class whose keyword is at `at` (no class starts inside it any more). */
function lowerOne(src: string, at: number): string {
  const tokens = tokenize(src, at, true);
  let k = 1;
  let name: string | undefined;
  if (tokens[k]?.type === "ident" && tokens[k]?.value !== "extends") name = (tokens[k++] as Token).value;
  let heritage: string | undefined;
  if (tokens[k]?.value === "extends") {
    const from = k + 1;
    let depth = 0;
    for (k = from; k < tokens.length; k++) {
      const v = (tokens[k] as Token).value;
      if (v === "(" || v === "[") depth++;
      else if (v === ")" || v === "]") depth--;
      else if (v === "{" && depth === 0) break;
    }
    heritage = src.slice((tokens[from] as Token).start, (tokens[k - 1] as Token).end);
  }
  if (tokens[k]?.value !== "{") throw new Error(`class at ${at}: expected its body, got ${tokens[k]?.value}`);
  const bodyOpen = k;
  const bodyClose = closing(tokens, bodyOpen);
  const members = parseMembers(src, tokens, bodyOpen + 1, bodyClose, at);
  // The name the constructor function takes: the class's own, else the variable it is assigned to.
  const before = src.slice(Math.max(0, at - 200), at);
  const assigned = /(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=\s*$/.exec(before)?.[1];
  const fn = name ?? assigned ?? `_class${counter++}`;
  const ctor = members.find((m) => m.kind === "constructor");
  const derived = heritage !== undefined;
  let text = `(function (${derived ? "_super" : ""}) {\n`;
  if (derived) text += `__extends(${fn}, _super);\n`;
  if (ctor === undefined) {
    text += derived
      ? `function ${fn}() { var _this = _super !== null && _super.apply(this, arguments) || this; return _this; }\n`
      : `function ${fn}() {}\n`;
  } else text += `function ${fn}(${ctor.params}) ${constructorBody(ctor, fn, derived)}\n`;
  for (const m of members) {
    if (m.kind === "constructor") continue;
    const target = m.isStatic ? fn : `${fn}.prototype`;
    const helper = m.kind === "get" ? "__getter" : m.kind === "set" ? "__setter" : "__method";
    const head = m.prefix === "async " ? "async function" : m.prefix === "*" ? "function*" : "function";
    text += `${helper}(${target}, ${m.key}, ${head} (${m.params}) ${m.body});\n`;
  }
  text += `return ${fn};\n})(${heritage ?? ""})`;
  // A class declaration (statement position) becomes a variable.
  const previous = /[^\s]\s*$/.exec(src.slice(0, at))?.[0]?.[0];
  const declaration = name !== undefined && (previous === undefined || previous === ";" || previous === "{" || previous === "}");
  const replacement = declaration ? `var ${name} = ${text};` : text;
  return src.slice(0, at) + replacement + src.slice((tokens[bodyClose] as Token).end);
}

function parseMembers(src: string, tokens: readonly Token[], from: number, to: number, at: number): Member[] {
  const members: Member[] = [];
  let k = from;
  while (k < to) {
    if ((tokens[k] as Token).value === ";") {
      k++;
      continue;
    }
    let isStatic = false;
    let prefix: Member["prefix"] = "";
    let accessor: "get" | "set" | undefined;
    const modifier = (word: string): boolean => tokens[k]?.value === word && tokens[k + 1]?.value !== "(" && tokens[k + 1]?.value !== "=";
    if (modifier("static")) (isStatic = true), k++;
    if (modifier("async")) (prefix = "async "), k++;
    if (tokens[k]?.value === "*") {
      if (prefix !== "") throw new Error(`class at ${at}: async generator methods are not lowered`);
      prefix = "*";
      k++;
    }
    if (modifier("get") || modifier("set")) (accessor = (tokens[k] as Token).value as "get" | "set"), k++;
    const keyToken = tokens[k] as Token;
    let key: string;
    if (keyToken.value === "[") {
      const end = closing(tokens, k);
      key = src.slice(keyToken.end, (tokens[end] as Token).start);
      k = end + 1;
    } else {
      key = keyToken.type === "ident" ? JSON.stringify(keyToken.value) : keyToken.value;
      k++;
    }
    if (tokens[k]?.value !== "(") throw new Error(`class at ${at}: member ${key} is not a method (a field the bundler left?)`);
    const paramsClose = closing(tokens, k);
    const params = src.slice((tokens[k] as Token).end, (tokens[paramsClose] as Token).start);
    const bodyOpen = paramsClose + 1;
    if (tokens[bodyOpen]?.value !== "{") throw new Error(`class at ${at}: member ${key} has no body`);
    const bodyClose = closing(tokens, bodyOpen);
    const body = src.slice((tokens[bodyOpen] as Token).start, (tokens[bodyClose] as Token).end);
    if (tokens.slice(bodyOpen, bodyClose).some((t, i, list) => t.value === "super" && list[i + 1]?.value === "."))
      throw new Error(`class at ${at}: super.member in ${key} is not lowered`);
    const kind = accessor ?? (key === '"constructor"' && !isStatic ? "constructor" : "method");
    members.push({ kind, isStatic, key, prefix, params, body, bodyStart: (tokens[bodyOpen] as Token).start });
    k = bodyClose + 1;
  }
  return members;
}

/** The constructor's body: `this` as `_this` (derived), `super(...)` as the parent's call, `new.target` as `_newTarget`. */
function constructorBody(ctor: Member, fn: string, derived: boolean): string {
  const body = ctor.body;
  const tokens = tokenize(body);
  let out = "";
  let copied = 0;
  const replace = (from: number, to: number, text: string): void => {
    out += body.slice(copied, from) + text;
    copied = to;
  };
  // Scopes opened by "{": true for a function or method body (its own `this`).
  const scopes: boolean[] = [];
  const parenOwner: (Token | undefined)[] = [];
  let lastParenOwner: Token | undefined;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    const inOwnThis = !scopes.includes(true);
    if (t.value === "(") parenOwner.push(tokens[k - 1]);
    else if (t.value === ")") lastParenOwner = parenOwner.pop();
    else if (t.value === "{") {
      const after = tokens[k - 1];
      const fnBody =
        after?.value === ")" && lastParenOwner !== undefined && !CONTROL.has(lastParenOwner.value) && lastParenOwner.value !== "=>";
      scopes.push(fnBody);
    } else if (t.value === "}") scopes.pop();
    if (t.type !== "ident") continue;
    if (t.value === "new" && tokens[k + 1]?.value === "." && tokens[k + 2]?.value === "target") {
      replace(t.start, (tokens[k + 2] as Token).end, "_newTarget");
      k += 2;
    } else if (derived && inOwnThis && t.value === "super" && tokens[k + 1]?.value === "(") {
      const close = closing(tokens, k + 1);
      const args = body.slice((tokens[k + 1] as Token).end, (tokens[close] as Token).start);
      replace(t.start, (tokens[close] as Token).end, `_this = _super.apply(this, [${args}]) || this`);
      k = close;
    } else if (derived && inOwnThis && t.value === "this") replace(t.start, t.end, "_this");
    else if (derived && inOwnThis && t.value === "return" && (tokens[k + 1]?.value === ";" || tokens[k + 1]?.value === "}"))
      replace(t.start, t.end, "return _this");
  }
  out += body.slice(copied);
  const head = `var _newTarget = this && this instanceof ${fn} ? this.constructor : void 0;${derived ? " var _this;" : ""}`;
  // The body's braces: insert after "{", and return _this before the final "}".
  const inner = out.slice(1, out.length - 1);
  return `{ ${head}${inner}${derived ? ";\nreturn _this;\n" : ""}}`;
}

// ── Block scoping ─────────────────────────────────────────────────────────────────────
//
// Hermes 0.12 gives `let` and `const` the scope of `var` (the whole function, one binding per
// loop). So every let/const declared below a function's top level (in a block, a loop head or
// body, a case) is renamed to a name of its own (`x` → `x$7`) throughout its block: var scoping
// can then no longer confuse it with an outer `x`. A `let` without initializer gets `= void 0`
// (it must start undefined on each pass of a loop). A closure made in a loop that reads a binding
// of the loop would share one binding across iterations: refused, naming it, since no renaming
// can fix it.

interface MutableToken extends Token {
  value: string;
}

/** Everything needed to walk a token list by its brackets. */
class Structure {
  readonly partner: Int32Array;
  /** The innermost open bracket ("(", "[", "{" or a template "${") around each token; -1 at top level. */
  readonly enclosing: Int32Array;
  readonly braceKind: ("function" | "block" | "object" | undefined)[];

  constructor(readonly tokens: readonly MutableToken[]) {
    const n = tokens.length;
    this.partner = new Int32Array(n).fill(-1);
    this.enclosing = new Int32Array(n).fill(-1);
    this.braceKind = new Array(n).fill(undefined);
    const stack: number[] = [];
    for (let k = 0; k < n; k++) {
      const t = tokens[k] as Token;
      this.enclosing[k] = stack.length > 0 ? (stack[stack.length - 1] as number) : -1;
      if (t.type === "template") {
        if (t.value.startsWith("}")) {
          const open = stack.pop() as number;
          this.partner[open] = k;
          this.partner[k] = open;
        }
        if (t.value.endsWith("${")) stack.push(k);
        continue;
      }
      if (t.type !== "punct") continue;
      if (t.value === "(" || t.value === "[" || t.value === "{") {
        if (t.value === "{") this.braceKind[k] = this.classify(k);
        stack.push(k);
      } else if (t.value === ")" || t.value === "]" || t.value === "}") {
        const open = stack.pop();
        if (open === undefined) throw new Error(`unbalanced ${t.value} at ${t.start}`);
        this.partner[open] = k;
        this.partner[k] = open;
      }
    }
  }

  private classify(k: number): "function" | "block" | "object" {
    const before = this.tokens[k - 1];
    if (before === undefined) return "block";
    if (before.value === "=>") return "function";
    if (before.value === ")") {
      const owner = this.tokens[this.partner[k - 1] - 1];
      return owner !== undefined && CONTROL.has(owner.value) ? "block" : "function";
    }
    if (before.type === "ident" && ["else", "try", "finally", "do"].includes(before.value)) return "block";
    if (before.value === ";" || before.value === "{" || before.value === "}") {
      const outer = this.enclosing[k - 1] ?? -1;
      return outer >= 0 && this.braceKind[outer] === "object" ? "object" : "block";
    }
    if (before.value === ":" && this.isClauseColon(k - 1)) return "block";
    return "object";
  }

  /** Whether the ":" at `k` ends a `case …:` or `default:` clause. */
  private isClauseColon(k: number): boolean {
    const outer = this.enclosing[k] ?? -1;
    for (let j = k - 1; j > outer; j--) {
      const t = this.tokens[j] as Token;
      if (this.partner[j] >= 0 && this.partner[j] < j) {
        j = this.partner[j];
        continue;
      }
      if (t.value === "case" || t.value === "default") return true;
      if (t.value === ";" || t.value === "{" || t.value === "}" || t.value === ":") return false;
    }
    return false;
  }

  /** The innermost function body around `k` (its "{"), or -1 at the top level. */
  functionOf(k: number): number {
    for (let open = this.enclosing[k] ?? -1; open >= 0; open = this.enclosing[open] ?? -1)
      if (this.braceKind[open] === "function") return open;
    return -1;
  }

  /** The index of the last token of the statement that starts at `k`. */
  statementEnd(k: number): number {
    const t = this.tokens[k] as Token;
    if (t.value === "{") return this.partner[k];
    if (t.value === "if") {
      let end = this.statementEnd(this.partner[k + 1] + 1);
      if (this.tokens[end + 1]?.value === "else") end = this.statementEnd(end + 2);
      return end;
    }
    if (t.value === "for" || t.value === "while" || t.value === "with") return this.statementEnd(this.partner[k + 1] + 1);
    let j = k;
    for (; j < this.tokens.length; j++) {
      const u = this.tokens[j] as Token;
      if (this.partner[j] > j) {
        j = this.partner[j];
        continue;
      }
      if (u.value === ";") return j;
      if (u.value === "}" || u.value === ")" || u.value === "]") return j - 1;
    }
    return j - 1;
  }

  /** Whether `k` is inside a loop's head or body, within the function `fn` (-1: top level). */
  inLoop(k: number, fn: number): boolean {
    for (let open = this.enclosing[k] ?? -1; open > fn; open = this.enclosing[open] ?? -1) {
      const t = this.tokens[open] as Token;
      const owner =
        t.value === "("
          ? this.tokens[open - 1]
          : t.value === "{" && this.tokens[open - 1]?.value === ")"
            ? this.tokens[this.partner[open - 1] - 1]
            : undefined;
      if (owner !== undefined && (owner.value === "for" || owner.value === "while")) return true;
      if (t.value === "{" && this.tokens[open - 1]?.value === "do") return true;
    }
    // A loop body without braces: a loop statement whose end lies past k.
    for (let j = k - 1; j > fn; j--) {
      const u = this.tokens[j] as Token;
      if (
        (u.value === "for" || u.value === "while") &&
        this.tokens[j + 1]?.value === "(" &&
        this.statementEnd(j) >= k &&
        this.functionOf(j) === fn
      )
        return true;
    }
    return false;
  }
}

let renames = 0;

/** `src` with its nested let/const declarations renamed apart (see above). */
export function lowerBlockScopes(src: string): string {
  const tokens = tokenize(src) as MutableToken[];
  const s = new Structure(tokens);
  const problems: string[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k] as MutableToken;
    if (t.type !== "ident" || (t.value !== "let" && t.value !== "const") || tokens[k - 1]?.value === ".") continue;
    const open = s.enclosing[k] ?? -1;
    const fn = s.functionOf(k);
    let first: number;
    let last: number;
    const inForHead = open >= 0 && tokens[open]?.value === "(" && tokens[open - 1]?.value === "for";
    if (inForHead) {
      first = open - 1;
      last = s.statementEnd(open - 1);
    } else if (open >= 0 && tokens[open]?.value === "{" && s.braceKind[open] === "block") {
      first = open;
      last = s.partner[open];
    } else continue; // a function's top level, or the script's: var scoping is the same
    const names = declaredNames(s, k + 1);
    for (const [index, name] of names.bindings) {
      const renamed = `${name}$${++renames}`;
      for (let j = first; j <= last; j++) renameAt(s, j, name, renamed);
      if (t.value === "let" && !inForHead && names.bare.has(index)) tokens[index]!.value += " = void 0";
      if (!inForHead && !s.inLoop(k, fn)) continue;
      for (const closure of closuresReading(s, first, last, renamed)) {
        // A const (or a loop head's binding, which the loop alone assigns) is captured by value:
        // the closure gets its own copy, as it would get its own binding per iteration.
        const extent = t.value === "const" || inForHead ? closureExtent(s, closure) : undefined;
        if (extent === undefined) {
          problems.push(
            `${name} (declared at offset ${t.start}) is read by a closure made in its loop at offset ${tokens[closure]?.start}`,
          );
          continue;
        }
        tokens[extent[0]]!.value = `((${renamed}) => ${tokens[extent[0]]!.value}`;
        tokens[extent[1]]!.value += `)(${renamed})`;
      }
    }
  }
  if (problems.length > 0) throw new Error(`block scoping cannot be lowered:\n${problems.join("\n")}`);
  let out = "";
  let at = 0;
  for (const t of tokens) {
    out += src.slice(at, t.start) + t.value;
    at = t.end;
  }
  return out + src.slice(at);
}

/** The names a let/const declaration binds (token index → name), and which of them have no initializer. */
function declaredNames(s: Structure, from: number): { bindings: [number, string][]; bare: Set<number> } {
  const tokens = s.tokens;
  const bindings: [number, string][] = [];
  const bare = new Set<number>();
  const skipExpression = (k: number): number => {
    for (; k < tokens.length; k++) {
      const v = (tokens[k] as Token).value;
      if (s.partner[k] > k) {
        k = s.partner[k];
        continue;
      }
      if (v === "," || v === ";" || v === ")" || v === "]" || v === "}") return k;
    }
    return k;
  };
  const binding = (k: number): number => {
    const t = tokens[k] as Token;
    if (t.type === "ident") {
      bindings.push([k, t.value]);
      return k + 1;
    }
    const close = s.partner[k];
    if (t.value === "[") {
      for (let j = k + 1; j < close; ) {
        if (tokens[j]?.value === ",") {
          j++;
          continue;
        }
        if (tokens[j]?.value === "...") j++;
        j = binding(j);
        if (tokens[j]?.value === "=") j = skipExpression(j + 1);
        if (tokens[j]?.value === ",") j++;
      }
      return close + 1;
    }
    if (t.value === "{") {
      for (let j = k + 1; j < close; ) {
        if (tokens[j]?.value === "...") j = binding(j + 1);
        else {
          const key = tokens[j] as Token;
          const next = key.value === "[" ? s.partner[j] + 1 : j + 1;
          if (tokens[next]?.value === ":") j = binding(next + 1);
          else {
            bindings.push([j, key.value]);
            j = next;
          }
        }
        if (tokens[j]?.value === "=") j = skipExpression(j + 1);
        if (tokens[j]?.value === ",") j++;
      }
      return close + 1;
    }
    throw new Error(`unexpected ${t.value} in a declaration at ${t.start}`);
  };
  let k = from;
  for (;;) {
    const start = k;
    k = binding(k);
    if (tokens[k]?.value === "=") k = skipExpression(k + 1);
    else if (tokens[start]?.type === "ident" && tokens[k]?.value !== "of" && tokens[k]?.value !== "in") bare.add(start);
    if (tokens[k]?.value !== ",") break;
    k++;
  }
  return { bindings, bare };
}

/** Renames the token at `j` when it is a reference to (or the declaration of) `name`. */
function renameAt(s: Structure, j: number, name: string, renamed: string): void {
  const t = s.tokens[j] as MutableToken;
  if (t.type !== "ident" || t.value !== name) return;
  const before = s.tokens[j - 1];
  const after = s.tokens[j + 1];
  if (before?.value === "." || before?.value === "?.") return;
  const open = s.enclosing[j] ?? -1;
  const inObject = open >= 0 && s.tokens[open]?.value === "{" && s.braceKind[open] === "object";
  if (
    inObject &&
    (before?.value === "{" ||
      before?.value === "," ||
      before?.value === "get" ||
      before?.value === "set" ||
      before?.value === "async" ||
      before?.value === "*")
  ) {
    if (after?.value === ":" || after?.value === "(") return; // a key, or a method's name
    if (after?.value === "," || after?.value === "}" || after?.value === "=") {
      t.value = `${name}: ${renamed}`; // shorthand: the key stays
      return;
    }
  }
  t.value = renamed;
}

/** The closures (their "=>", or their body's "{") inside tokens [first, last] that read `name`; outermost ones only. */
function closuresReading(s: Structure, first: number, last: number, name: string): number[] {
  const tokens = s.tokens;
  const found: number[] = [];
  for (let k = first; k <= last; k++) {
    const t = tokens[k] as Token;
    let end: number | undefined;
    if (t.value === "{" && s.braceKind[k] === "function" && tokens[k - 1]?.value !== "=>") end = s.partner[k];
    else if (t.value === "=>") end = tokens[k + 1]?.value === "{" ? s.partner[k + 1] : expressionEnd(s, k + 1);
    if (end === undefined) continue;
    for (let j = k; j <= end; j++) {
      if (tokens[j]?.value === name) {
        found.push(k);
        break;
      }
    }
    k = end;
  }
  return found;
}

/** The last token of the expression that starts at `k` (up to a comma, semicolon or closing bracket). */
function expressionEnd(s: Structure, k: number): number {
  for (; k < s.tokens.length; k++) {
    const v = (s.tokens[k] as Token).value;
    if (s.partner[k] > k) {
      k = s.partner[k];
      continue;
    }
    if (v === "," || v === ";" || v === ")" || v === "]" || v === "}") return k - 1;
  }
  return k - 1;
}

/** The first and last tokens of the closure expression whose "=>" or body "{" is at `k`; undefined for a declaration or a method. */
function closureExtent(s: Structure, k: number): [number, number] | undefined {
  const tokens = s.tokens;
  if (tokens[k]?.value === "=>") {
    const end = tokens[k + 1]?.value === "{" ? s.partner[k + 1] : expressionEnd(s, k + 1);
    let start = tokens[k - 1]?.value === ")" ? s.partner[k - 1] : k - 1;
    if (tokens[start - 1]?.value === "async") start--;
    return [start, end];
  }
  const open = s.partner[k - 1];
  let start = tokens[open - 1]?.value === "function" ? open - 1 : tokens[open - 2]?.value === "function" ? open - 2 : -1;
  if (start < 0) return undefined;
  if (tokens[start - 1]?.value === "async") start--;
  const before = tokens[start - 1]?.value;
  if (before === undefined || before === ";" || before === "{" || before === "}") return undefined;
  return [start, s.partner[k]];
}

/** Classes and block scoping lowered: what an ES5 engine with ES2015 built-ins (Hermes 0.12) runs. */
export function lowerToEs5(src: string): string {
  return lowerBlockScopes(lowerClasses(src));
}
