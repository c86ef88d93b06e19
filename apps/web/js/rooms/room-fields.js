// The room form's manager model: the alias that routes, evaluates and writes the answer in
// modes whose spec says `uses_manager`; "server default (<model>)" leaves it to the server.

import { serverDefaultLabel } from "../core/defaults.js";
import { roomModes } from "../core/modes.js";

/** A formDialog select for `manager_model` (room: the room being edited, or null). */
export function managerField(room, models) {
  const current = room?.manager_model ?? "";
  const options = [{ value: "", label: serverDefaultLabel() },
    ...models.map((m) => ({ value: m.name, label: `${m.name} (${m.provider}: ${m.model})` }))];
  if (current && !models.some((m) => m.name === current)) {
    options.push({ value: current, label: `${current} (not configured)` });
  }
  const managed = roomModes().filter((spec) => spec.uses_manager).map((spec) => spec.name);
  return { name: "manager_model", label: "Manager model", type: "select", value: current, options,
    hint: managed.length ? `Routes, evaluates and answers in ${managed.join(", ")} turns.` : "" };
}

/** The form's values with the default choice sent as null (the server's default). */
export function managerValue(values) {
  return { ...values, manager_model: values.manager_model || null };
}
