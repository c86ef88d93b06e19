// Runs a Pantheon room with the official AG-UI client (@ag-ui/client's HttpAgent) and
// prints what the client made of it as one JSON object on stdout:
//   node run.mjs <agent url> <message> [approve]
// With "approve", a run that ends on interrupts is resumed once, approving them all
// (buildResumeArray over agent.pendingInterrupts), on the same thread.
// {"runs": [{"error": <what the client threw, or null>, "events": [<types in order>],
//   "outcome": <RUN_FINISHED outcome>, "interrupts": [<pending interrupts after it>]}],
//  "warnings": [<console.warn/error lines>], "messages": <agent.messages>,
//  "subagents": [{"id", "name"}]}
// The client verifies the stream (run lifecycle, message/step/subagent attribution) and
// throws on the first violation; its applier warns on events it cannot place.
import { HttpAgent, buildResumeArray } from "@ag-ui/client";

const [url, message, then] = process.argv.slice(2);
const warnings = [];
for (const level of ["warn", "error"]) {
  console[level] = (...args) => warnings.push(args.map(String).join(" "));
}

const agent = new HttpAgent({ url, headers: {} });
agent.addMessage({ id: "user-1", role: "user", content: message });
const subagents = [];
const runs = [];

async function run(parameters) {
  const seen = { error: null, events: [], outcome: null, interrupts: [] };
  try {
    await agent.runAgent(parameters, {
      onEvent: ({ event }) => {
        seen.events.push(event.type);
      },
      onSubagentStartedEvent: ({ event }) => {
        subagents.push({ id: event.subagentRunId, name: event.name });
      },
      onRunFinishedEvent: ({ event }) => {
        seen.outcome = event.outcome ?? null;
      },
    });
  } catch (caught) {
    seen.error = String(caught?.message ?? caught);
  }
  seen.interrupts = agent.pendingInterrupts;
  runs.push(seen);
}

await run({});
if (then === "approve" && agent.pendingInterrupts.length > 0) {
  const answers = Object.fromEntries(
    agent.pendingInterrupts.map((i) => [i.id, { status: "resolved", payload: { approved: true } }]),
  );
  await run({ resume: buildResumeArray(agent.pendingInterrupts, answers) });
}
process.stdout.write(JSON.stringify({ runs, warnings, messages: agent.messages, subagents }));
