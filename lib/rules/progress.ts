// Progress tokens (P-01) and the one rule that progress strictly increases (P-05), used for
// what we receive, what our host sends and what a task of ours reports alike.

import { isJsonObject, isRequestId, type JsonObject } from "../wire/envelope.js";
import { describeValue } from "../wire/errors.js";
import type { ProgressToken } from "../types/base.js";

export function isProgressToken(value: unknown): value is ProgressToken {
  return isRequestId(value);
}

/** P-01: the token a request asked progress on (`params._meta.progressToken`), if it is a valid one. */
export function progressTokenOf(params: JsonObject | undefined): ProgressToken | undefined {
  if (params === undefined) return undefined;
  const meta = params._meta;
  if (!isJsonObject(meta)) return undefined;
  const token = meta.progressToken;
  return isProgressToken(token) ? token : undefined;
}

/** P-05: what is wrong with `progress` after `previous` (undefined: none yet), as [expected, got]; undefined when it may follow. */
export function progressProblem(previous: number | undefined, progress: unknown): readonly [string, string] | undefined {
  if (typeof progress === "number" && Number.isFinite(progress) && (previous === undefined || progress > previous)) return undefined;
  return [`a finite progress greater than ${previous ?? "-Infinity"}`, describeValue(progress)];
}
