// Capabilities as bitmasks (RULES.md C-10). A capability object is turned into a mask once,
// when it becomes known (configuration, negotiation); gating then tests bits only.
//
// Presence rules: an object-valued capability is declared when its key is present, even as
// `{}`; `listChanged` and `subscribe` count only when `true`. `elicitation: {}` means form
// mode only (back-compatibility rule of 2025-11-25), so the form bit is also set when
// neither `form` nor `url` is given.

import { isJsonObject, type JsonObject } from "../wire/envelope.js";

// Literal values (not 1 << n) so that the declaration is written from the source alone (isolatedDeclarations).
export const Cap = {
  roots: 1, // 1 << 0
  rootsListChanged: 2, // 1 << 1
  sampling: 4, // 1 << 2
  samplingTools: 8, // 1 << 3
  samplingContext: 16, // 1 << 4
  elicitation: 32, // 1 << 5
  elicitationForm: 64, // 1 << 6
  elicitationUrl: 128, // 1 << 7
  tasksRequestsSamplingCreateMessage: 256, // 1 << 8
  tasksRequestsElicitationCreate: 512, // 1 << 9
  tasks: 1024, // 1 << 10
  tasksList: 2048, // 1 << 11
  tasksCancel: 4096, // 1 << 12
  logging: 8192, // 1 << 13
  completions: 16384, // 1 << 14
  prompts: 32768, // 1 << 15
  promptsListChanged: 65536, // 1 << 16
  resources: 131072, // 1 << 17
  resourcesSubscribe: 262144, // 1 << 18
  resourcesListChanged: 524288, // 1 << 19
  tools: 1048576, // 1 << 20
  toolsListChanged: 2097152, // 1 << 21
  tasksRequestsToolsCall: 4194304, // 1 << 22
} as const;

export type CapName = keyof typeof Cap;

/** Every bit; used for a peer whose capabilities are not known yet. */
export const ALL_CAPS: number = (1 << 23) - 1;

type Presence = "present" | "true";

/** [bit, path, how it counts]. The human name of a bit is its path, used in error messages. */
const CAP_PATHS: ReadonlyArray<readonly [number, readonly string[], Presence]> = [
  [Cap.roots, ["roots"], "present"],
  [Cap.rootsListChanged, ["roots", "listChanged"], "true"],
  [Cap.sampling, ["sampling"], "present"],
  [Cap.samplingTools, ["sampling", "tools"], "present"],
  [Cap.samplingContext, ["sampling", "context"], "present"],
  [Cap.elicitation, ["elicitation"], "present"],
  [Cap.elicitationForm, ["elicitation", "form"], "present"],
  [Cap.elicitationUrl, ["elicitation", "url"], "present"],
  [Cap.tasksRequestsSamplingCreateMessage, ["tasks", "requests", "sampling", "createMessage"], "present"],
  [Cap.tasksRequestsElicitationCreate, ["tasks", "requests", "elicitation", "create"], "present"],
  [Cap.tasks, ["tasks"], "present"],
  [Cap.tasksList, ["tasks", "list"], "present"],
  [Cap.tasksCancel, ["tasks", "cancel"], "present"],
  [Cap.logging, ["logging"], "present"],
  [Cap.completions, ["completions"], "present"],
  [Cap.prompts, ["prompts"], "present"],
  [Cap.promptsListChanged, ["prompts", "listChanged"], "true"],
  [Cap.resources, ["resources"], "present"],
  [Cap.resourcesSubscribe, ["resources", "subscribe"], "true"],
  [Cap.resourcesListChanged, ["resources", "listChanged"], "true"],
  [Cap.tools, ["tools"], "present"],
  [Cap.toolsListChanged, ["tools", "listChanged"], "true"],
  [Cap.tasksRequestsToolsCall, ["tasks", "requests", "tools", "call"], "present"],
];

function lookup(caps: unknown, path: readonly string[]): unknown {
  let node: unknown = caps;
  for (const key of path) {
    if (!isJsonObject(node) || !Object.prototype.hasOwnProperty.call(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** The mask of a capability object. Unknown keys are ignored (the set is open). */
export function capabilityMask(caps: unknown): number {
  let mask = 0;
  for (const [bit, path, presence] of CAP_PATHS) {
    const value = lookup(caps, path);
    if (presence === "true" ? value === true : value !== undefined && value !== null && value !== false) mask |= bit;
  }
  if ((mask & Cap.elicitation) !== 0 && (mask & (Cap.elicitationForm | Cap.elicitationUrl)) === 0) {
    mask |= Cap.elicitationForm;
  }
  return mask;
}

/** The capability object declaring exactly `bits`: { elicitation: { url: {} } } for elicitation + elicitationUrl. */
export function capabilityObject(bits: number): JsonObject {
  const out: JsonObject = {};
  for (const [bit, path, presence] of CAP_PATHS) {
    if ((bits & bit) === 0) continue;
    let node = out;
    for (let i = 0; i < path.length; i++) {
      const key = path[i] as string;
      if (i === path.length - 1 && presence === "true") node[key] = true;
      else if (!isJsonObject(node[key])) node[key] = {};
      const next = node[key];
      if (isJsonObject(next)) node = next;
    }
  }
  return out;
}

/** "resources.subscribe" for Cap.resourcesSubscribe; joined names for a multi-bit mask. */
export function capabilityName(bits: number): string {
  const names: string[] = [];
  for (const [bit, path] of CAP_PATHS) if ((bits & bit) !== 0) names.push(path.join("."));
  return names.join(" + ");
}
