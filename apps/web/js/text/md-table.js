// GitHub-style pipe tables for markdown.js: a header row, a delimiter row (---, :--, :-:,
// --:), then body rows. Cells are rendered inline (via the `inline` callback) into DOM
// nodes; alignment goes to data-align (the CSP allows no inline styles).

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

/** Append the table starting at `start` to `parent`; returns the next line index. */
export function table(lines, start, parent, inline) {
  const head = splitRow(lines[start]);
  const aligns = splitRow(lines[start + 1]).map(align);
  const tableEl = document.createElement("table");
  const thead = document.createElement("thead");
  thead.append(row(head, "th", aligns, inline));
  const tbody = document.createElement("tbody");
  let i = start + 2;
  while (i < lines.length && lines[i].trim() !== "" && lines[i].includes("|")) {
    const cells = splitRow(lines[i]).slice(0, head.length);
    while (cells.length < head.length) cells.push("");
    tbody.append(row(cells, "td", aligns, inline));
    i += 1;
  }
  tableEl.append(thead, tbody);
  const wrap = document.createElement("div");
  wrap.className = "table-wrap"; // scrolls sideways on narrow screens instead of the page
  wrap.append(tableEl);
  parent.append(wrap);
  return i;
}

function row(cells, tag, aligns, inline) {
  const tr = document.createElement("tr");
  cells.forEach((text, index) => {
    const cell = document.createElement(tag);
    if (aligns[index]) cell.dataset.align = aligns[index];
    inline(cell, text);
    tr.append(cell);
  });
  return tr;
}
