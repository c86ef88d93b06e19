// Server-Sent Events over fetch: EventSource cannot POST, so we parse the stream ourselves.
// Follows the WHATWG "event stream" rules for the fields we use: data (joined with \n),
// id, event; comment lines (":" keep-alives) and retry are ignored.

export class SSEParser {
  constructor(onMessage) {
    this.onMessage = onMessage;
    this.buffer = "";
    this.reset();
  }

  reset() {
    this.data = [];
    this.event = "";
    this.id = null;
  }

  /** Feed decoded text; complete messages are dispatched, a partial line is kept. */
  feed(text) {
    this.buffer += text;
    const lines = this.buffer.split(/\r\n|\r|\n/);
    this.buffer = lines.pop();
    for (const line of lines) this.line(line);
  }

  line(line) {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "id") this.id = value;
    else if (field === "event") this.event = value;
    return undefined;
  }

  dispatch() {
    if (this.data.length) {
      this.onMessage({ id: this.id, event: this.event || "message", data: this.data.join("\n") });
    }
    this.reset();
  }
}

/**
 * Read an SSE Response body to its end, calling onEvent(json, id) per message.
 * Resolves when the server closes the stream; rejects on network errors and aborts.
 */
export async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parser = new SSEParser((message) => {
    let parsed;
    try {
      parsed = JSON.parse(message.data);
    } catch {
      return; // not one of ours; the protocol only sends JSON data
    }
    onEvent(parsed, message.id === null ? null : Number(message.id));
  });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    parser.feed(decoder.decode());
  } finally {
    reader.releaseLock();
  }
}
