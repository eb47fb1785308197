// URI reference resolution (RFC 3986 section 5.2) without the URL global, which the
// portable layers do not assume: the HTTP+SSE client resolves the `endpoint` event's URI
// against the SSE stream's URL with it.

const URI_PARTS = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;

/** Resolves `reference` (absolute, network-path, absolute-path or relative) against the absolute URI `base`. */
export function resolveReference(base: string, reference: string): string {
  const r = URI_PARTS.exec(reference);
  const b = URI_PARTS.exec(base);
  if (r === null || b === null) return reference;
  const [, rScheme, rAuthority, rPath = "", rQuery, rFragment] = r;
  const [, bScheme, bAuthority, bPath = "", bQuery] = b;
  let scheme: string | undefined;
  let authority: string | undefined;
  let path: string;
  let query: string | undefined;
  if (rScheme !== undefined) {
    scheme = rScheme;
    authority = rAuthority;
    path = removeDotSegments(rPath);
    query = rQuery;
  } else {
    scheme = bScheme;
    if (rAuthority !== undefined) {
      authority = rAuthority;
      path = removeDotSegments(rPath);
      query = rQuery;
    } else {
      authority = bAuthority;
      if (rPath === "") {
        path = bPath;
        query = rQuery ?? bQuery;
      } else {
        path = rPath.startsWith("/") ? removeDotSegments(rPath) : removeDotSegments(mergePaths(bAuthority, bPath, rPath));
        query = rQuery;
      }
    }
  }
  let out = scheme !== undefined ? `${scheme}:` : "";
  if (authority !== undefined) out += `//${authority}`;
  out += path;
  if (query !== undefined) out += `?${query}`;
  if (rFragment !== undefined) out += `#${rFragment}`;
  return out;
}

function mergePaths(baseAuthority: string | undefined, basePath: string, reference: string): string {
  if (baseAuthority !== undefined && basePath === "") return `/${reference}`;
  const slash = basePath.lastIndexOf("/");
  return slash < 0 ? reference : basePath.slice(0, slash + 1) + reference;
}

function removeDotSegments(path: string): string {
  let input = path;
  const output: string[] = [];
  while (input !== "") {
    if (input.startsWith("../")) input = input.slice(3);
    else if (input.startsWith("./")) input = input.slice(2);
    else if (input.startsWith("/./")) input = input.slice(2);
    else if (input === "/.") input = "/";
    else if (input.startsWith("/../")) {
      input = input.slice(3);
      output.pop();
    } else if (input === "/..") {
      input = "/";
      output.pop();
    } else if (input === "." || input === "..") input = "";
    else {
      const next = input.indexOf("/", input.startsWith("/") ? 1 : 0);
      const segment = next < 0 ? input : input.slice(0, next);
      output.push(segment);
      input = next < 0 ? "" : input.slice(next);
    }
  }
  return output.join("");
}
