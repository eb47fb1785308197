// The skills extension's methods in every Client's table (SEP-2640, SK-01): sent on the server's
// declaration alone, declared by nobody on the client side. Apart from skills-client.ts so that
// a Client that reads no skills bundles only these names, not the reader and its checks.

import { DIRECTORY_READ, SKILLS_EXTENSION, SKILLS_GET, SKILLS_LIST } from "../../skills/entries.js";
import type { Extensions } from "../shared/custom-methods.js";

/** The Client's table of the extension's methods when its options do not name the extension. */
export function withSkillsMethods(extensions: Extensions | undefined): Extensions {
  if (extensions !== undefined && Object.prototype.hasOwnProperty.call(extensions, SKILLS_EXTENSION)) return extensions;
  return { ...extensions, [SKILLS_EXTENSION]: { requests: [SKILLS_LIST, SKILLS_GET, DIRECTORY_READ], gatedBy: "server", declare: false } };
}
