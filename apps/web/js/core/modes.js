// The room modes the page offers, in picker order, with their copy: one list for the
// room's default picker, the per-turn picker, the new-room dialog and the empty state.
// The values are the API's (engine/values.py RoomMode); a test checks they match.

export const ROOM_MODES = [
  { value: "orchestrator", label: "orchestrator (manager routes)",
    hint: "a manager routes specialists, round by round",
    note: "In orchestrator mode the manager routes it to specialists round by round." },
  { value: "roundtable", label: "roundtable (everyone)",
    hint: "every agent answers, in roster order" },
  { value: "manual", label: "manual (only @mentioned)",
    hint: "only the agents you @mention answer",
    note: "In manual mode, mention agents by key: type @ to pick one." },
  { value: "pipeline", label: "pipeline (stages in roster order)",
    hint: "each agent refines the previous one's output, in roster order",
    note: "In pipeline mode each agent is a stage that builds on the previous stage's output; re-run a later stage from a finished turn." },
  { value: "review", label: "review (draft, reviews, revisions)",
    hint: "the first agent drafts, the others review until they approve",
    note: "In review mode the first agent drafts and the others score it; the drafter revises until they approve." },
];

export function modeInfo(value) {
  return ROOM_MODES.find((m) => m.value === value) ?? null;
}
