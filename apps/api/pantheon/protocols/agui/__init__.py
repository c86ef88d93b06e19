"""AG-UI 1.0 (the agent-to-UI event protocol of CopilotKit, assistant-ui ...): every room
as an AG-UI agent at ``POST /agui/rooms/{room_id}``, a fold over its turns' events."""
