// The in-place applicators of the JSON Schema validator (./validator.ts): allOf, anyOf,
// oneOf, not, if/then/else, as keyword checks for the compiler (./compile.ts).
//
// Invariants:
// - annotations (for unevaluated*) follow JSON Schema 2020-12: allOf and the taken then/else
//   branch write to the schema's own sink (their failure fails the schema); every passing
//   anyOf alternative, the one passing oneOf alternative and a passing `if` contribute
//   theirs; `not` never does. Only when a sink is open does anyOf evaluate every
//   alternative; otherwise it stops at the first that passes;
// - failed alternatives are summarized in the error (first error of up to three).

import { run, type Check, type Ctx, type Node } from "./eval.js";
import type { JsonSchemaError } from "./validator.js";
import type { JsonRecord } from "./values.js";

/** What the combinators need of the compiler. */
export interface SubschemaSource {
  sub(schema: JsonRecord, key: string, location: string): Node | undefined;
  schemaList(schema: JsonRecord, key: string, location: string): Node[] | undefined;
}

export function combinatorChecks(compiler: SubschemaSource, schema: JsonRecord, location: string, node: Node): Check[] {
  const checks: Check[] = [];
  const all = compiler.schemaList(schema, "allOf", location);
  if (all !== undefined) {
    node.sameValue.push(...all);
    checks.push((v, ctx) => {
      let ok = true;
      for (const s of all) {
        if (!run(s, v, ctx)) ok = false;
        if (ctx.full) break;
      }
      return ok;
    });
  }
  const alternatives = compiler.schemaList(schema, "anyOf", location);
  if (alternatives !== undefined) {
    node.sameValue.push(...alternatives);
    checks.push((v, ctx) => {
      const reasons: JsonSchemaError[] = [];
      let passed = false;
      for (const s of alternatives) {
        const probe = ctx.probe(true);
        if (run(s, v, probe)) {
          passed = true;
          if (probe.seen === undefined) return true;
          ctx.seen?.merge(probe.seen);
        } else reasons.push(...probe.errors);
      }
      return passed || ctx.report(`expected a value matching at least one schema of anyOf: ${summarize(reasons, ctx)}`);
    });
  }
  const one = compiler.schemaList(schema, "oneOf", location);
  if (one !== undefined) {
    node.sameValue.push(...one);
    checks.push((v, ctx) => {
      const reasons: JsonSchemaError[] = [];
      const matched: number[] = [];
      let kept: Ctx | undefined;
      for (let i = 0; i < one.length && matched.length < 2; i++) {
        const probe = ctx.probe(true);
        if (run(one[i] as Node, v, probe)) {
          matched.push(i);
          kept = probe;
        } else reasons.push(...probe.errors);
      }
      if (matched.length === 1) {
        if (kept?.seen !== undefined) ctx.seen?.merge(kept.seen);
        return true;
      }
      if (matched.length === 0)
        return ctx.report(`expected a value matching exactly one schema of oneOf, it matches none: ${summarize(reasons, ctx)}`);
      return ctx.report(`expected a value matching exactly one schema of oneOf, it matches #${matched[0]} and #${matched[1]}`);
    });
  }
  const not = compiler.sub(schema, "not", location);
  if (not !== undefined) {
    node.sameValue.push(not);
    checks.push((v, ctx) => !run(not, v, ctx.probe(false)) || ctx.report(`expected a value not matching the schema of "not"`));
  }
  const condition = compiler.sub(schema, "if", location);
  const then = compiler.sub(schema, "then", location);
  const otherwise = compiler.sub(schema, "else", location);
  if (condition !== undefined) {
    node.sameValue.push(condition, ...(then !== undefined ? [then] : []), ...(otherwise !== undefined ? [otherwise] : []));
    // A lone "if" still annotates (its passing evaluation counts for unevaluated*), so it runs only when a sink is open.
    checks.push((v, ctx) => {
      if (then === undefined && otherwise === undefined && ctx.seen === undefined) return true;
      const probe = ctx.probe(true);
      const holds = run(condition, v, probe);
      if (holds && probe.seen !== undefined) ctx.seen?.merge(probe.seen);
      const branch = holds ? then : otherwise;
      return branch === undefined || run(branch, v, ctx);
    });
  }
  return checks;
}

/** The first error of up to three failed alternatives, paths shown when deeper than the current value. */
function summarize(reasons: JsonSchemaError[], ctx: Ctx): string {
  const here = ctx.pathText();
  const parts = reasons.slice(0, 3).map((r) => (r.path === here ? r.message : `${r.path}: ${r.message}`));
  if (reasons.length > 3) parts.push(`… (${reasons.length} alternatives failed)`);
  return parts.join("; ");
}
