// GitHub-style pipe tables for markdown.js: a header row, a delimiter row (---, :--, :-:,
// --:), then body rows. Pure like the parser: cells become tree nodes (via the `inline`
// callback) and alignment an `align` attribute (the DOM side writes it to data-align: the
// CSP allows no inline styles).

const DELIMITER_CELL = /^\s*:?-{1,}:?\s*$/;

export function splitRow(line) {
  let body = line.trim();
  if (body.startsWith("|")) body = body.slice(1);
  if (body.endsWith("|") && !body.endsWith("\\|")) body = body.slice(0, -1);
  const cells = [];
  let cell = "";
  for (let i = 0; i < body.length; i += 1) {
    if (body[i] === "\\" && body[i + 1] === "|") { cell += "|"; i += 1; continue; }
    if (body[i] === "|") { cells.push(cell.trim()); cell = ""; continue; }
    cell += body[i];
  }
  cells.push(cell.trim());
  return cells;
}

/** True when lines[i] and lines[i + 1] start a table. */
export function isTableStart(lines, i) {
  if (i + 1 >= lines.length || !lines[i].includes("|")) return false;
  const head = splitRow(lines[i]);
  const delimiter = splitRow(lines[i + 1]);
  return delimiter.length === head.length && delimiter.every((c) => DELIMITER_CELL.test(c));
}

function align(cell) {
  const left = cell.trim().startsWith(":");
  const right = cell.trim().endsWith(":");
  if (left && right) return "center";
  if (right) return "right";
  return left ? "left" : null;
}

/** Push the table starting at `start` onto `parent` (a node list); returns the next index. */
export function table(lines, start, parent, inline) {
  const head = splitRow(lines[start]);
  const aligns = splitRow(lines[start + 1]).map(align);
  const body = [];
  let i = start + 2;
  while (i < lines.length && lines[i].trim() !== "" && lines[i].includes("|")) {
    const cells = splitRow(lines[i]).slice(0, head.length);
    while (cells.length < head.length) cells.push("");
    body.push(row(cells, "td", aligns, inline));
    i += 1;
  }
  parent.push(tableNode("table", [tableNode("thead", [row(head, "th", aligns, inline)]),
    tableNode("tbody", body)]));
  return i;
}

function tableNode(tag, children, attrs = {}) {
  return { tag, attrs, children };
}

function row(cells, tag, aligns, inline) {
  return tableNode("tr", cells.map((text, index) => tableNode(tag, inline(text),
    aligns[index] ? { align: aligns[index] } : {})));
}
