// The Documents dialog of a room or an agent: the list (status polled until settled),
// upload by file picker or drag and drop with a progress bar per file, delete with
// confirmation, and a search over the place's passages. File names and passages are
// user input: they only ever go into text nodes.

import { confirmDialog, showModal } from "../core/dialogs.js";
import { h } from "../core/dom.js";
import {
  deleteDocument, formatBytes, getDocument, listDocuments, searchKnowledge, uploadDocument,
} from "./knowledge-api.js";

const POLL_MS = 800;
const ACCEPT = ".pdf,.docx,.txt,.text,.md,.markdown,.csv,.html,.htm";

function statusText(doc) {
  if (doc.status === "pending") return "Processing…";
  if (doc.status === "failed") return `Failed: ${doc.error || "the file could not be read"}`;
  const parts = ["Ready"];
  if (doc.pages) parts.push(`${doc.pages} page${doc.pages === 1 ? "" : "s"}`);
  parts.push(`${doc.chunks} passage${doc.chunks === 1 ? "" : "s"}`);
  return parts.join(" · ");
}

/** place: {kind: "room" | "agent", id, name}. Resolves when the dialog closes. */
export function openDocumentsDialog(place) {
  return new Promise((resolve) => {
    const rows = new Map(); // document id -> {el, doc, status}
    const status = h("p", { class: "muted docs-status", role: "status" });
    const list = h("ul", { class: "docs-list", "aria-label": "Documents" });
    const uploads = h("ul", { class: "docs-uploads", "aria-label": "Uploads" });
    const input = h("input", { type: "file", multiple: true, accept: ACCEPT, class: "visually-hidden",
      "aria-label": "Choose files to upload", onchange: () => { uploadAll(input.files); input.value = ""; } });
    const drop = h("div", { class: "docs-drop" },
      h("span", {}, "Drop files here or "),
      h("button", { type: "button", class: "small", onclick: () => input.click() }, "Choose files…"),
      input,
      h("span", { class: "muted docs-types" }, "PDF, DOCX, TXT, Markdown, CSV, HTML"));
    const query = h("input", { type: "search", "aria-label": "Search these documents",
      placeholder: "Search the passages", maxlength: 1000, autocomplete: "off" });
    const results = h("ol", { class: "docs-results", "aria-label": "Search results" });
    const searchStatus = h("p", { class: "muted docs-status", role: "status" });
    const searchForm = h("form", { class: "docs-search", onsubmit: (e) => { e.preventDefault(); search(); } },
      query, h("button", { type: "submit" }, "Search"));
    const dialog = h("dialog", { class: "modal documents-dialog", "aria-label": `Documents of ${place.name}` },
      h("div", { class: "dialog-form" },
        h("h2", {}, `Documents of ${place.name}`),
        h("p", { class: "dialog-text muted" }, place.kind === "room"
          ? "Every agent of this room can search these with the search_knowledge tool."
          : "This agent can search these in every room, with the search_knowledge tool."),
        drop, uploads, status, list,
        h("h3", { class: "docs-subtitle" }, "Search"),
        searchForm, searchStatus, results,
        h("div", { class: "dialog-actions" },
          h("button", { type: "button", class: "ghost", onclick: () => dialog.close() }, "Close"))));
    let timer = null;
    let open = true;

    function summary() {
      const n = rows.size;
      status.textContent = n ? `${n} document${n === 1 ? "" : "s"}` : "No documents yet.";
    }

    function show(doc) {
      let row = rows.get(doc.id);
      if (!row) {
        const name = h("span", { class: "doc-name" }, doc.filename);
        const state = h("span", { class: "doc-status" });
        const el = h("li", { class: "doc-item", dataset: { id: doc.id } },
          h("div", { class: "doc-main" }, name, h("span", { class: "doc-meta" }, formatBytes(doc.bytes)), state),
          h("button", { type: "button", class: "ghost small danger-text", "aria-label": `Delete ${doc.filename}`,
            onclick: () => remove(doc.id) }, "Delete"));
        row = { el, state };
        rows.set(doc.id, row);
        list.append(el);
      }
      row.doc = doc;
      row.el.dataset.status = doc.status;
      row.state.textContent = statusText(doc);
      summary();
      if (doc.status === "pending") schedule();
    }

    function schedule() {
      if (timer === null && open) timer = setTimeout(poll, POLL_MS);
    }

    async function poll() {
      timer = null;
      for (const row of [...rows.values()].filter((r) => r.doc.status === "pending")) {
        try {
          show(await getDocument(row.doc.id));
        } catch (err) {
          if (err.status === 404) dropRow(row.doc.id);
          else status.textContent = err.message;
        }
      }
    }

    function dropRow(docId) {
      rows.get(docId)?.el.remove();
      rows.delete(docId);
      summary();
    }

    async function remove(docId) {
      const name = rows.get(docId)?.doc.filename ?? "this document";
      if (!(await confirmDialog(`Delete ${name}?`, "Its passages go with it; agents can no longer find them."))) return;
      try {
        await deleteDocument(docId);
        dropRow(docId);
      } catch (err) {
        status.textContent = err.message;
      }
    }

    function uploadAll(files) {
      for (const file of files) upload(file);
    }

    async function upload(file) {
      const bar = h("progress", { max: 100, value: 0, "aria-label": `Uploading ${file.name}` });
      const pct = h("span", { class: "upload-pct" }, "0%");
      const item = h("li", { class: "upload-item", dataset: { state: "uploading" } },
        h("span", { class: "doc-name" }, file.name), bar, pct);
      uploads.append(item);
      try {
        const { document, existing } = await uploadDocument(place, file, (f) => {
          bar.value = Math.round(f * 100);
          pct.textContent = `${Math.round(f * 100)}%`;
        });
        item.remove();
        show(document);
        if (existing) status.textContent = `${file.name} is already here (same content as ${document.filename}).`;
      } catch (err) {
        item.dataset.state = "failed";
        item.replaceChildren(
          h("span", { class: "upload-error", role: "alert" }, err.message),
          h("button", { type: "button", class: "ghost small", "aria-label": "Dismiss", onclick: () => item.remove() }, "×"));
      }
    }

    async function search() {
      const q = query.value.trim();
      if (!q) return;
      searchStatus.textContent = "Searching…";
      try {
        const items = await searchKnowledge(place, q);
        searchStatus.textContent = items.length ? "" : `Nothing found for “${q}” in the ready documents.`;
        results.replaceChildren(...items.map(passage));
      } catch (err) {
        searchStatus.textContent = err.message;
      }
    }

    /** One search hit: file and page, the passage clamped to a few lines ("More" opens it). */
    function passage(item) {
      const text = h("p", { class: "passage-text", dataset: { clamped: "true" } }, item.text);
      const more = item.text.length > 240
        ? h("button", { type: "button", class: "ghost small", "aria-expanded": "false", onclick: () => {
          const expanding = text.dataset.clamped === "true";
          text.dataset.clamped = String(!expanding);
          more.setAttribute("aria-expanded", String(expanding));
          more.textContent = expanding ? "Less" : "More";
        } }, "More")
        : null;
      return h("li", { class: "passage" },
        h("div", { class: "passage-source" }, item.filename, item.page ? `, page ${item.page}` : ""), text, more);
    }

    for (const target of [drop, dialog]) {
      target.addEventListener("dragover", (e) => { e.preventDefault(); drop.dataset.over = "true"; });
      target.addEventListener("dragleave", () => { delete drop.dataset.over; });
      target.addEventListener("drop", (e) => {
        e.preventDefault();
        e.stopPropagation();
        delete drop.dataset.over;
        if (e.dataTransfer?.files?.length) uploadAll(e.dataTransfer.files);
      });
    }
    showModal(dialog, () => {
      open = false;
      clearTimeout(timer);
      resolve();
    });
    status.textContent = "Loading…";
    listDocuments(place).then((docs) => { docs.forEach(show); summary(); },
      (err) => { status.textContent = err.message; });
  });
}
