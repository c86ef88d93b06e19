// The knowledge routes: a room's or an agent's documents, upload with progress, search.
// `place` is {kind: "room" | "agent", id}. Errors are ApiError (see api.js); upload
// errors for a refused file (413, 415) get a sentence naming the limit or the types.

import { ApiError, authHeaders, request } from "../core/api.js";

const id = encodeURIComponent;
const base = (place) => `/v1/${place.kind === "room" ? "rooms" : "agents"}/${id(place.id)}`;

/** Every page of the place's documents, oldest first. */
export async function listDocuments(place) {
  const items = [];
  for (let offset = 0; ; offset += 200) {
    const page = await request("GET", `${base(place)}/documents?limit=200&offset=${offset}`);
    items.push(...page.items);
    if (items.length >= page.total || page.items.length === 0) return items;
  }
}

export const getDocument = (docId) => request("GET", `/v1/documents/${id(docId)}`);
export const deleteDocument = (docId) => request("DELETE", `/v1/documents/${id(docId)}`);
export const searchKnowledge = (place, q, limit = 8) =>
  request("GET", `${base(place)}/knowledge/search?q=${encodeURIComponent(q)}&limit=${limit}`)
    .then((body) => body.items);

/** "20 MiB", "512 KB", "730 bytes". */
export function formatBytes(n) {
  if (n >= 1024 * 1024) return `${+(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} byte${n === 1 ? "" : "s"}`;
}

/** The server's 413/415 detail as a sentence for a person, naming the limit or the types. */
export function describeUploadError(status, detail, filename) {
  const text = typeof detail === "string" ? detail : "";
  if (status === 413) {
    const limit = /larger than (\d+) bytes/.exec(text);
    return limit
      ? `${filename} is too large: a document can be at most ${formatBytes(Number(limit[1]))}.`
      : `${filename} is too large for this server.`;
  }
  if (status === 415) {
    const [reason, accepted = ""] = text.split(/;\s*accepted:\s*/);
    const types = [...accepted.matchAll(/([A-Z]+) \(([^)]*)\)/g)];
    const names = types.map((m) => (m[1] === "MARKDOWN" ? "Markdown" : m[1]));
    const exts = types.map((m) => m[2]).join(" ");
    const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names[0];
    const why = reason.replace(/^unsupported file type/, "its type is not accepted").replace(`${filename} `, "it ");
    return list
      ? `${filename} was not added: ${why}. Accepted: ${list} files (${exts}).`
      : `${filename} was not added: ${why || "this type of file is not accepted"}.`;
  }
  return null;
}

/**
 * POST the file (multipart field `file`) with XMLHttpRequest for upload progress.
 * onProgress(fraction 0..1). Resolves {document, existing} (existing: the same bytes were
 * already here, answered 200). Rejects with ApiError.
 */
export function uploadDocument(place, file, onProgress = () => {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `${base(place)}/documents`);
    xhr.setRequestHeader("Accept", "application/json");
    for (const [name, value] of Object.entries(authHeaders("POST"))) xhr.setRequestHeader(name, value);
    xhr.upload.addEventListener("progress", (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); });
    xhr.addEventListener("load", () => {
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = null;
      }
      if (xhr.status === 200 || xhr.status === 201 || xhr.status === 202) {
        onProgress(1);
        resolve({ document: body, existing: xhr.status === 200 });
        return;
      }
      const detail = body?.detail ?? `${xhr.status} ${xhr.statusText}`;
      const error = new ApiError(xhr.status, detail, body?.code);
      const words = describeUploadError(xhr.status, detail, file.name);
      if (words) error.message = words;
      reject(error);
    });
    xhr.addEventListener("error", () => {
      const error = new ApiError(0, "connection closed");
      error.message = `The upload of ${file.name} stopped: the connection closed. `
        + "Is the server running? A file over its size limit can also end like this.";
      reject(error);
    });
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.send(form);
  });
}
