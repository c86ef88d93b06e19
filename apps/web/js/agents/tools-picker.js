// The agent form's tools picker, fed by GET /v1/tools: one checkbox per tool with its
// description, built-ins first, then one group per MCP server. Tools of a server that is
// down, and quarantined tools (definition_changed: docs/tools.md "Pinned tool definitions"),
// are disabled with a note saying which. Beside each tool, "Ask me first" adds the approval suffix
// `!` (docs/approvals.md): the call then waits for a person. Entries of the agent that the
// list does not show (a server's `orders.*`) are kept as they are.

import { h } from "../core/dom.js";

const firstParagraph = (text) => String(text ?? "").split(/\n\s*\n/)[0].replace(/\s+/g, " ").trim();

function groupTitle(source) {
  if (source === "builtin") return "Built-in tools";
  if (source.startsWith("mcp:")) return `MCP server ${source.slice(4)}`;
  return source;
}

const unavailableNote = (tool) => (tool.definition_changed
  ? "quarantined: its definition changed since it was pinned; an admin must accept it"
  : "unavailable: the server cannot be reached now");

/** tools: GET /v1/tools items, or null when the list could not be loaded. */
export function toolsPicker({ tools, selected = [], loadError = null }) {
  const chosen = new Map(selected.map((entry) => [entry.replace(/!$/, ""), entry]));
  const boxes = [];
  const asks = new Map(); // a listed tool's box -> its "Ask me first" box
  const legend = h("legend", { class: "field-label" }, "Tools");
  if (!tools) {
    const note = h("p", { class: "field-hint tools-error", role: "status" },
      `The list of tools could not be loaded${loadError ? ` (${loadError})` : ""}; this agent's tools stay as they are`
      + (selected.length ? `: ${selected.join(", ")}.` : "."));
    return { element: h("fieldset", { class: "field tools-picker" }, legend, note), read: () => undefined };
  }

  const groups = new Map();
  for (const tool of tools) {
    if (!groups.has(tool.source)) groups.set(tool.source, []);
    groups.get(tool.source).push(tool);
  }
  const order = [...groups.keys()].sort((a, b) => (a === "builtin" ? -1 : b === "builtin" ? 1 : a.localeCompare(b)));
  const listed = new Set(tools.map((t) => t.name));

  const groupEls = order.map((source) => h("div", { class: "tools-group", dataset: { source } },
    h("div", { class: "tools-group-title" }, groupTitle(source)),
    groups.get(source).map((tool) => {
      const input = h("input", { type: "checkbox", name: "tool", value: tool.name, disabled: !tool.available });
      input.checked = chosen.has(tool.name);
      boxes.push(input);
      const ask = h("input", { type: "checkbox", class: "tool-ask-box", disabled: !tool.available,
        "aria-label": `Ask me first before each ${tool.name} call` });
      ask.checked = Boolean(chosen.get(tool.name)?.endsWith("!"));
      ask.addEventListener("change", () => { if (ask.checked) input.checked = true; });
      input.addEventListener("change", () => { if (!input.checked) ask.checked = false; });
      asks.set(input, ask);
      return h("div", { class: "tool-row" }, h("label", { class: "tool-option", dataset: { tool: tool.name, available: String(tool.available) } },
        input,
        h("span", { class: "tool-option-text" },
          h("code", { class: "tool-option-name" }, tool.name),
          !tool.available ? h("span", { class: "badge warn" }, unavailableNote(tool)) : null,
          firstParagraph(tool.description) ? h("span", { class: "tool-option-desc" }, firstParagraph(tool.description)) : null)),
      h("label", { class: "tool-ask", title: "Each call waits until you approve or reject it in the chat" },
        ask, "Ask me first"));
    })));

  const kept = selected.filter((entry) => !listed.has(entry.replace(/!$/, "")));
  const keptEls = kept.map((entry) => {
    const input = h("input", { type: "checkbox", name: "tool", value: entry });
    input.checked = true;
    input.dataset.entry = entry;
    boxes.push(input);
    return h("label", { class: "tool-option", dataset: { tool: entry, available: "unknown" } }, input,
      h("span", { class: "tool-option-text" }, h("code", { class: "tool-option-name" }, entry),
        h("span", { class: "tool-option-desc" }, "Not in the server's list right now; kept unless you untick it.")));
  });

  const element = h("fieldset", { class: "field tools-picker" }, legend,
    h("span", { class: "field-hint" }, "What this agent may call while it answers."),
    tools.length || kept.length ? null : h("p", { class: "field-hint" }, "This server offers no tools."),
    groupEls,
    keptEls.length ? h("div", { class: "tools-group", dataset: { source: "other" } },
      h("div", { class: "tools-group-title" }, "Other entries"), keptEls) : null);

  const entry = (box) => box.dataset.entry ?? (asks.get(box)?.checked ? `${box.value}!` : box.value);
  const read = () => boxes.filter((b) => b.checked).map(entry);
  return { element, read };
}
