// The read-only page of a share link (share.html at /share/<token>, docs/adr/0042): the
// snapshot from GET /v1/shared/<token>, no sign-in, no key, no cookie. Each turn is the
// person's message as typed, then each answer under its speaker's name, rendered by the
// web client's own Markdown (and KaTeX, and Prism) renderer: text never becomes HTML.

import { h } from "../core/dom.js";
import { renderMarkdown } from "../text/markdown-dom.js";
import { answerState, readSnapshot, sharedNote, snapshotUrl, tokenFromPath } from "./snapshot.js";

const main = document.getElementById("main");

class NotFound extends Error {}

async function readPage(token, offset) {
  const response = await fetch(snapshotUrl(token, offset), { credentials: "omit" });
  if (response.status === 404) throw new NotFound();
  if (!response.ok) throw new Error(`the server answered ${response.status}`);
  return response.json();
}

function answerPanel(answer) {
  const state = answerState(answer.status);
  const status = answer.status === "ok" ? "done" : answer.status;
  return h("section", { class: "panel", "aria-label": answer.speaker, dataset: { state: status } },
    h("header", { class: "panel-head" },
      h("span", { class: "panel-name" }, answer.speaker),
      state ? h("span", { class: "panel-state" }, state) : null),
    answer.content ? h("div", { class: "panel-body md" }, renderMarkdown(answer.content)) : null);
}

function turnView(turn) {
  const label = turn.kind === "decisions" ? "Approval decisions" : "Message";
  return h("article", { class: "turn", "aria-label": "Turn" },
    h("div", { class: "msg-user", "aria-label": label, dataset: { kind: turn.kind } }, turn.message),
    turn.answers.length
      ? h("div", { class: "turn-body" }, h("div", { class: "panels stack" }, ...turn.answers.map(answerPanel)))
      : null);
}

function show(snapshot) {
  document.title = `${snapshot.title || "Shared conversation"} · Pantheon`;
  main.replaceChildren(
    h("header", { class: "share-head" },
      h("h1", {}, snapshot.title || "Shared conversation"),
      h("p", { class: "share-note" }, sharedNote(snapshot.sharedAt, snapshot.turns.length))),
    snapshot.turns.length
      ? h("div", { class: "share-turns" }, ...snapshot.turns.map(turnView))
      : h("p", { class: "share-empty" }, "Nothing had been said yet when this link was made."));
}

function fail(err) {
  const gone = err instanceof NotFound;
  main.replaceChildren(
    h("h1", {}, gone ? "Link not found" : "This conversation could not be loaded"),
    h("p", { class: gone ? "share-empty" : "share-error", role: "alert" }, gone
      ? "This share link does not exist or no longer works."
      : `Try again later (${err.message}).`));
}

async function start() {
  const token = tokenFromPath(location.pathname);
  if (token === null) {
    fail(new NotFound());
    return;
  }
  try {
    show(await readSnapshot((offset) => readPage(token, offset)));
  } catch (err) {
    fail(err);
  }
}

start();
