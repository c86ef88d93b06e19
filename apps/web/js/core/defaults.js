// What the server fills in or enforces (GET /v1/defaults): the default model alias (an
// agent or a room's manager without a chosen model) and the longest message a turn
// accepts. Loaded once at start-up (app.js), like the modes; the page keeps no copy.

let defaults = { default_model: "", max_message_chars: null };

/** Keep the server's answer: {default_model, max_message_chars}. */
export function setDefaults(value) {
  defaults = Object.freeze({ ...defaults, ...value });
}

/** The server's defaults (empty model and no limit until loaded). */
export function serverDefaults() {
  return defaults;
}

/** The label of a model picker's "no choice" option: it names the model that then runs. */
export function serverDefaultLabel() {
  return defaults.default_model ? `server default (${defaults.default_model})` : "server default";
}
