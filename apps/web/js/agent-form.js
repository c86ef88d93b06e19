// Create or edit an agent: key, name, role prompt and model alias (from GET /v1/models).

import { api } from "./api.js";
import { formDialog } from "./dialogs.js";

export function agentDialog({ agent = null, models }) {
  const options = [
    ...(agent ? [] : [{ value: "", label: "server default" }]),
    ...models.map((m) => ({ value: m.name, label: `${m.name} (${m.provider}: ${m.model})` })),
  ];
  if (agent && !models.some((m) => m.name === agent.model)) {
    options.unshift({ value: agent.model, label: `${agent.model} (not configured)` });
  }
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
    ],
    onSubmit: (values) => {
      const data = { ...values, model: values.model || null };
      return agent ? api.updateAgent(agent.id, data) : api.createAgent(data);
    },
  });
}
