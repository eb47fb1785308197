// The reference server's skills (the skills extension, SEP-2640): two skills, one at the top of
// the namespace and one nested under a prefix with supporting files in subdirectories, so the
// conformance suite's skills scenarios have a directory to descend, a name to match against a
// path and digests to check. Served by serveSkills (lib/peer/server/skills.ts).

import type { SkillSource } from "../skills/catalog.js";

export const REFERENCE_SKILLS: readonly SkillSource[] = [
  {
    path: "git-workflow",
    files: [
      {
        path: "SKILL.md",
        content: `---
name: git-workflow
description: Follow this team's Git conventions for branching and commits
license: MIT
---

# Git workflow

1. Branch from \`main\` as \`<topic>/<short-name>\`.
2. Write commit messages in the imperative mood, a subject under 72 characters.
3. Rebase on \`main\` before asking for review; never force-push a shared branch.
`,
      },
    ],
  },
  {
    path: "acme/billing/refunds",
    files: [
      {
        path: "SKILL.md",
        content: `---
name: refunds
description: Process customer refund requests per company policy
license: Apache-2.0
metadata:
  version: "1.2.0"
  owner: billing-team
---

# Refunds

Check the order against the policy, then answer the customer with the template in
\`examples/email.md\`. Regional variants live in \`templates/regional/\`; the calculation
is in \`scripts/refund.py\`.
`,
      },
      {
        path: "examples/email.md",
        content: "Dear customer,\n\nYour refund of {amount} for order {order} has been issued.\n",
      },
      {
        path: "templates/regional/eu-refund.md",
        content: "Under EU consumer law, you may withdraw within 14 days of delivery.\n",
      },
      {
        path: "scripts/refund.py",
        content: "def refund(amount, restocking_fee=0):\n    return max(0, amount - restocking_fee)\n",
      },
    ],
  },
];
