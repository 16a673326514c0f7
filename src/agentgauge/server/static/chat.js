// agentgauge web UI, Chat tab: talk to the app's agent through the ADK routes (/run, sessions) and save the session
// as a case of the chosen eval set. Loaded before app.js; its functions use app.js's helpers ($, el, api, enc, ui,
// loadSets, showSet) when called.
"use strict";

window.AgentgaugeChat = (() => {
  const USER_ID = "user";

  // Chat needs an agent: an app that only has eval sets (e.g. trace-mode sets) cannot be chatted with.
  function showChatState() {
    const app = ui.apps[ui.app];
    const usable = !!(app && app.hasAgent);
    for (const id of ["chat-new", "chat-input", "chat-send", "save-case-id", "save-case"]) $(id).disabled = !usable;
    const reason = $("chat-disabled");
    reason.textContent = usable ? "" : `App ${ui.app} has no agent, so there is nothing to chat with: serve its agent ` +
      "(agentgauge serve path/to/agent) to chat. Its eval sets and results can still be viewed and run in trace mode.";
    reason.hidden = usable;
    $("tab-chat").title = usable ? "" : "no agent is served for this app";
    if (!usable) {
      ui.session = null;
      $("chat-session").textContent = "";
      $("chat-log").replaceChildren();
    }
  }

  function chatMessage(kind, text) {
    const log = $("chat-log");
    log.append(el("div", { class: `msg ${kind}` }, text));
    log.scrollTop = log.scrollHeight;
  }

  async function newSession() {
    const session = await api("POST", `/apps/${enc(ui.app)}/users/${USER_ID}/sessions`, {});
    ui.session = session.id;
    $("chat-session").textContent = `session ${session.id}`;
    $("chat-log").replaceChildren();
    $("chat-note").replaceChildren();
    return session.id;
  }

  async function sendMessage(event) {
    event.preventDefault();
    const text = $("chat-input").value.trim();
    if (!text) return;
    if (!ui.session) await newSession();
    $("chat-input").value = "";
    chatMessage("user", text);
    try {
      const events = await api("POST", "/run", {
        appName: ui.app, userId: USER_ID, sessionId: ui.session,
        newMessage: { role: "user", parts: [{ text }] },
      });
      for (const e of events) {
        for (const part of (e.content && e.content.parts) || []) {
          if (part.functionCall) chatMessage("tool", `→ ${part.functionCall.name}(${JSON.stringify(part.functionCall.args)})`);
          else if (part.functionResponse) chatMessage("tool", `← ${JSON.stringify(part.functionResponse.response)}`);
          else if (part.text) chatMessage("agent", part.text);
        }
      }
    } catch (error) {
      chatMessage("error", error.message);
    }
  }

  async function saveSession(event) {
    event.preventDefault();
    const note = $("chat-note");
    if (!ui.session || !ui.set) {
      note.replaceChildren(el("div", { class: "error" }, ui.set ? "Chat first." : "Choose an eval set first."));
      return;
    }
    const evalId = $("save-case-id").value.trim();
    try {
      await api("POST", `/dev/apps/${enc(ui.app)}/eval-sets/${enc(ui.set)}/add-session`,
        { evalId, sessionId: ui.session, userId: USER_ID });
      note.replaceChildren(el("div", { class: "ok", id: "saved-case" }, `Added case ${evalId} to ${ui.set}.`));
      $("save-case-id").value = "";
      await loadSets();
      await showSet();
    } catch (error) {
      note.replaceChildren(el("div", { class: "error" }, error.message));
    }
  }

  return { showChatState, newSession, sendMessage, saveSession };
})();
