// The example of the book chapter this project started from, as the chapter prints it: a
// server built with `new Server({ name, version })` and one tool registered as
// `server.tool(name, description, { param: JSON Schema }, handler)`, served on stdio. Run by
// spec-tests/e2e/book-example.test.ts with the official SDK v1 client. Only the imports (this
// repository's modules instead of the package), the stand-in database and the last line
// (serveStdio, where the chapter connects a transport) are ours.

import { serveStdio } from "../../lib/hosts/stdio.js";
import { Server } from "../../lib/peer/index.js";

// A stand-in for the chapter's database client: it answers every query with the query.
const db = { query: async (sql: string) => [{ sql, rows: 0 }] };

const server = new Server({
  name: "database-server",
  version: "1.0.0",
});

server.tool(
  "query_database",
  "데이터베이스를 쿼리합니다",
  {
    query: { type: "string", description: "SQL 쿼리" },
  },
  async (params) => {
    const result = await db.query(params.query);
    return {
      content: [{ type: "text", text: JSON.stringify(result) }],
    };
  },
);

serveStdio(server);
