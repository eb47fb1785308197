// The skills extension's public surface (export "./skills", SEP-2640): serving skills from a
// Server, the catalog they are built into, the frontmatter reader, and what a client's
// `skillsClient(client)` gives and throws. Separate from "./peer" so that a Server without skills
// carries none of this.

export { serveSkills, skillsExtension, type ServeSkillsOptions, type SkillsExtensionOptions } from "./server/skills.js";
export {
  SkillCatalog,
  mimeTypeOf,
  type CatalogOptions,
  type SkillFile,
  type SkillFileSource,
  type SkillSource,
} from "../skills/catalog.js";
export { readFrontmatter, type FrontmatterReading } from "../skills/frontmatter.js";
export {
  DIRECTORY_READ,
  MAX_SKILL_BYTES,
  MAX_SKILL_FILES,
  SKILLS_EXTENSION,
  SKILLS_GET,
  SKILLS_LIST,
  digestOf,
  isSkillName,
  type SkillEntry,
  type SkillResource,
} from "../skills/entries.js";
export {
  SkillVerificationError,
  SkillsClient,
  skillsClient,
  type LoadOptions,
  type LoadedSkill,
  type VerifiedFile,
} from "./client/skills-client.js";
