// Create or edit an agent: key, name, role prompt, model alias (from GET /v1/models) and
// tools (from GET /v1/tools). Created from a room's page, it can join that room's roster
// in the same step.

import { api } from "../core/api.js";
import { formDialog } from "../core/dialogs.js";
import { toolsPicker } from "./tools-picker.js";
import { serverDefaultLabel } from "../core/defaults.js";

/** Resolves to {agent, addedTo: room|null, joinError}, or null when cancelled. */
export async function agentDialog({ agent = null, models, room = null }) {
  let tools = null;
  let loadError = null;
  try {
    tools = await api.tools();
  } catch (err) {
    loadError = err.message;
  }
  const picker = toolsPicker({ tools, selected: agent?.tools ?? [], loadError });
  const options = [
    ...(agent ? [] : [{ value: "", label: serverDefaultLabel() }]),
    ...models.map((m) => ({ value: m.name, label: `${m.name} (${m.provider}: ${m.model})` })),
  ];
  if (agent && !models.some((m) => m.name === agent.model)) {
    options.unshift({ value: agent.model, label: `${agent.model} (not configured)` });
  }
  const joinRoom = !agent && room;
  return formDialog({
    title: agent ? `Edit ${agent.name}` : "New agent",
    submitLabel: agent ? "Save" : "Create agent",
    fields: [
      { name: "key", label: "Key", value: agent?.key, required: true, pattern: "[A-Za-z][A-Za-z0-9_\\-]{0,63}",
        placeholder: "researcher", hint: "Used for @mentions: a letter, then letters, digits, - or _." },
      { name: "name", label: "Name", value: agent?.name, required: true, maxlength: 200, placeholder: "Researcher" },
      { name: "role_prompt", label: "Role prompt", type: "textarea", value: agent?.role_prompt, required: true,
        placeholder: "You find facts and cite sources." },
      { name: "model", label: "Model", type: "select", value: agent?.model ?? "", options },
      { name: "tools", ...picker },
      joinRoom ? { name: "join", label: `Add to ${room.name}'s roster`, type: "checkbox", value: true } : null,
    ].filter(Boolean),
    onSubmit: async ({ join, ...values }) => {
      const data = { ...values, model: values.model || null };
      if (agent) return { agent: await api.updateAgent(agent.id, data), addedTo: null };
      const created = await api.createAgent(data);
      if (!join) return { agent: created, addedTo: null };
      try {
        await api.addMember(room.id, created.id, null);
      } catch (err) { // the agent exists now: report, do not offer to create it twice
        return { agent: created, addedTo: null, joinError: err };
      }
      return { agent: created, addedTo: room };
    },
  });
}
