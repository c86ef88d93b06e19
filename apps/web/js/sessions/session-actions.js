// What the session bar does, the same in rooms and on agents: browse and search sessions,
// start a new one (an empty chat; the session is created by the first message), rename,
// delete, export the open one and show what it cost.

import { api } from "../core/api.js";
import { confirmDialog, formDialog } from "../core/dialogs.js";
import { exportSession } from "./export.js";
import { notify, notifyError } from "../core/notify.js";
import { openSessionsDialog } from "./sessions-dialog.js";
import { openShareLinkDialog } from "./share-link.js";
import { openUsageDialog } from "./usage-dialog.js";
import { sessionLabel } from "../text/format.js";

/**
 * owner: {kind: "room"|"agent", id, name}; go(hash); currentId; isRunning(sessionId);
 * refresh(): re-draw the page after a change.
 */
export function sessionActions({ owner, currentId, go, isRunning, refresh }) {
  const base = `#/${owner.kind}s/${owner.id}`;
  const list = (q = "") => (owner.kind === "room" ? api.roomSessions(owner.id, q) : api.agentSessions(owner.id, q));

  async function rename(session) {
    const renamed = await formDialog({
      title: "Rename session",
      description: "Leave it empty to name the session after its first message again.",
      fields: [{ name: "title", label: "Title", value: session.title_is_auto ? "" : session.title,
        maxlength: 200, placeholder: session.title_is_auto ? session.title : "" }],
      onSubmit: (v) => api.updateSession(session.id, { title: v.title }),
    });
    if (renamed) refresh();
    return Boolean(renamed);
  }

  async function remove(session) {
    if (isRunning(session.id)) {
      notify("A turn is running in this session: stop it or let it finish, then delete the session.", "error");
      return false;
    }
    const sure = await confirmDialog(`Delete “${sessionLabel(session)}”?`,
      "Its turns are removed from the list and cannot be opened again.", "Delete session");
    if (!sure) return false;
    try {
      await api.deleteSession(session.id);
    } catch (err) {
      notifyError(err);
      return false;
    }
    notify(`Deleted “${sessionLabel(session)}”.`);
    if (session.id === currentId) go(base, { replace: true });
    else refresh();
    return true;
  }

  return {
    selectSession: (sid) => go(`${base}/sessions/${sid}`),
    newSession: () => go(`${base}/new`),
    browseSessions: () => openSessionsDialog({
      title: `Sessions: ${owner.name}`, currentId, list,
      open: (session) => go(`${base}/sessions/${session.id}`), rename, remove,
    }),
    renameSession: (session) => session && rename(session),
    deleteSession: (session) => session && remove(session),
    shareLink: (session) => session && openShareLinkDialog(session),
    sessionUsage: (session) => session && openUsageDialog({
      title: `Usage: ${sessionLabel(session)}`, load: () => api.sessionUsage(session.id) }),
    exportSession: (session, format) => session && exportSession(session, format,
      `${owner.kind === "room" ? "Room" : "Agent"}: ${owner.name}`).catch(notifyError),
  };
}
