// An HTTP failure as the command prints it: the status and at most one line of the body. A
// server or a proxy in front of it may answer an error page of any size (a framework's HTML 404,
// a stack trace); the user needs the status and what the body says first, not the page.
//
// Invariants: the result is one line (no line break survives); the status part of the message
// ("HTTP 404", "HTTP 502 (text/html)") is kept as it is; an HTML body is shown by its <title>,
// or else by the first line of its text with the tags, scripts and styles taken out; a body
// of several lines says how many were left out. Pure: the caller prints the result through the
// one printer for untrusted text (CLI-01), since the body is the server's.

/** The most characters of the body's line shown. */
export const BODY_LINE_WIDTH = 160;

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith("#")) {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const looksLikeHtml = (body: string): boolean => /^\s*<(!doctype\s+html|html|head|body|title|h1|div|p)\b/i.test(body);

const textLines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((line) => line.replace(/\s+/g, " ").trim())
    .filter((line) => line !== "");

/** The lines of text of an HTML body: its title alone when it has one, else its text without tags, scripts and styles. */
function htmlLines(body: string): { lines: string[]; title: boolean } {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(body)?.[1];
  if (title !== undefined && title.trim() !== "") return { lines: [textLines(decodeEntities(title)).join(" ")], title: true };
  const text = body
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<[^>]*>/g, "\n");
  return { lines: textLines(decodeEntities(text)), title: false };
}

/**
 * One line for a failure message of the form "HTTP <status>[ (...)]: <body>": the status part
 * and the body's first line (an HTML page by its title), cut at BODY_LINE_WIDTH, with how much
 * was left out. Any other message is returned with its line breaks turned into spaces.
 */
export function httpFailureLine(message: string): string {
  const match = /^(HTTP \d{3}(?: \([^)\n]*\))?): ([\s\S]*)$/.exec(message);
  if (match === null) return message.replace(/\s*\r?\n\s*/g, " ");
  const head = match[1] as string;
  const body = match[2] as string;
  const html = looksLikeHtml(body);
  const { lines, title } = html ? htmlLines(body) : { lines: textLines(body), title: false };
  if (lines.length === 0) return html ? `${head}: an HTML page with no text` : head;
  let first = lines[0] as string;
  const notes: string[] = [];
  if (title) notes.push("the title of an HTML page");
  else if (html) notes.push("the text of an HTML page");
  if (first.length > BODY_LINE_WIDTH) {
    notes.push(`cut at ${BODY_LINE_WIDTH} of ${first.length} characters`);
    first = `${first.slice(0, BODY_LINE_WIDTH)}…`;
  }
  if (lines.length > 1) notes.push(`${lines.length - 1} more line${lines.length > 2 ? "s" : ""} not shown`);
  return `${head}: ${first}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`;
}
