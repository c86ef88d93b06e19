// Which passages an answer drew on, from its search_knowledge results. The tool's result
// is text (apps/api/pantheon/knowledge/tool.py):
//   [1] manual.pdf, page 2
//   Flaps set to fifteen degrees before takeoff.
//
//   [2] tower.txt
//   Runway 27 closes at dusk.
// Pure: chat/citations.js draws the list.

const HEAD = /^\[(\d+)\] (.+?)(?:, page (\d+))?$/;

/** The passages of one search_knowledge result: [{n, filename, page, text}]. */
export function parsePassages(content) {
  const passages = [];
  let current = null;
  for (const line of String(content ?? "").split("\n")) {
    const head = HEAD.exec(line);
    if (head) {
      current = { n: Number(head[1]), filename: head[2], page: head[3] ? Number(head[3]) : null, text: "" };
      passages.push(current);
    } else if (current) {
      current.text = current.text ? `${current.text}\n${line}` : line;
    }
  }
  for (const p of passages) p.text = p.text.trim();
  return passages;
}

/**
 * The distinct (file, page) sources of `results` (the contents of one agent's
 * search_knowledge results in a turn, in order): those the answer names (by file name or,
 * for a single search, by [n]) first and marked cited, then the others in the order found.
 */
export function citedSources(answer, results) {
  const text = String(answer ?? "");
  const markers = new Set([...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));
  const sources = new Map();
  results.forEach((content, index) => {
    for (const p of parsePassages(content)) {
      const key = `${p.filename}\u0000${p.page ?? ""}`;
      const cited = text.includes(p.filename) || (results.length === 1 && markers.has(p.n));
      const seen = sources.get(key);
      if (seen) seen.cited ||= cited;
      else sources.set(key, { ...p, cited, order: index * 1000 + p.n });
    }
  });
  return [...sources.values()].sort((a, b) => (b.cited - a.cited) || (a.order - b.order));
}
