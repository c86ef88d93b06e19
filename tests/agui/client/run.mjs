// Runs a Pantheon room with the official AG-UI client (@ag-ui/client's HttpAgent) and
// prints what the client made of the run as one JSON object on stdout:
//   node run.mjs <agent url> <message> [<thread id>]
// {"error": <what the client threw, or null>, "warnings": [<console.warn/error lines>],
//  "events": [<event types in order>], "messages": <agent.messages>,
//  "subagents": [{"id", "name"}], "outcome": <RUN_FINISHED outcome>}
// The client verifies the stream (run lifecycle, message/step/subagent attribution) and
// throws on the first violation; its applier warns on events it cannot place.
import { HttpAgent } from "@ag-ui/client";

const [url, message, threadId] = process.argv.slice(2);
const warnings = [];
for (const level of ["warn", "error"]) {
  console[level] = (...args) => warnings.push(args.map(String).join(" "));
}

const agent = new HttpAgent({ url, threadId, headers: {} });
agent.addMessage({ id: "user-1", role: "user", content: message });
const events = [];
const subagents = [];
let outcome = null;
let error = null;
try {
  await agent.runAgent(
    {},
    {
      onEvent: ({ event }) => {
        events.push(event.type);
      },
      onSubagentStartedEvent: ({ event }) => {
        subagents.push({ id: event.subagentRunId, name: event.name });
      },
      onRunFinishedEvent: ({ event }) => {
        outcome = event.outcome ?? null;
      },
    },
  );
} catch (caught) {
  error = String(caught?.message ?? caught);
}
process.stdout.write(
  JSON.stringify({ error, warnings, events, messages: agent.messages, subagents, outcome }),
);
