// The page: one WebSocket to Rafle's server, the board, the panels.  The server holds
// the game and decides every rule; the page shows its state and sends requests.
import { Board } from "./board.js";
// ----- part 2 (the board players know, analysis): modules of their own ------------------
import { settings, save as saveSettings, apply as applySettings, initDialog, toggle } from "./settings.js";
import { playSound, unlockOnGesture } from "./sounds.js";
import { renderMoves, moveNumber, firstMover } from "./movelist.js";
import { EvalGraph } from "./graph.js";
import { AnalysisLines, renderDatabase } from "./lines.js";
import { Editor } from "./editor.js";
import { Clocks, chosenClock, showClockFields } from "./clock.js";
import { adopt, keep, savedCopy, socketUrl } from "./store.js";
import { Review } from "./review.js";

const $ = (id) => document.getElementById(id);
let ws = null;
let state = null;
let replayTimer = null;
let setup = null;
let engineClock = null;     // the seconds counter while the engine starts

function send(message) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  else showError("not connected to the server: reconnecting...");
}

function showError(text) { $("error").textContent = text; }

const board = new Board($("board"), {
  onMove: (from, to, path) => {
    const m = { type: "move", from, to };
    if (path) m.path = path;
    send(m);
  },
  onHint: (text) => { $("message").textContent = text; },
});
const clocks = new Clocks(send);

// ----- part 2: settings, sounds, premove, analysis lines, graph, editor -----------------
applySettings(board);
unlockOnGesture();
const lines = new AnalysisLines(board, settings);
const graph = new EvalGraph($("graph"), {
  onGoto: (ply) => navigate(ply),
  moveLabel: (ply) => {
    if (!state || !state.record[ply - 1]) return "";
    const side = state.first_ply_side === 0 ? "white" : "black";
    const { number, opens } = moveNumber(ply - 1, side, firstMover(state));
    return `${number}.${opens ? "" : ".."} ${state.record[ply - 1].text}`;
  },
});
const review = new Review(board, send);
const editor = new Editor(board, send, () => { if (state) { board.set(state); lines.arrows(state); } });
board.onPremove = (p) => {
  $("message").textContent = p ? `premove ${p.from}-${p.to}: played as soon as it is your turn (click elsewhere to cancel)` : "";
};
initDialog(board, settingChanged);
function settingChanged(key) {
  if (key === "lines") return;
  if (key === "premove" && !settings.premove) board.setPremove(null);
  if (key === "arrows" && state) lines.arrows(state);
  if (state) board.draw();
}
$("lines-count").value = String(settings.lines);
$("lines-count").onchange = () => {
  settings.lines = Number($("lines-count").value);
  saveSettings();
  send({ type: "lines", count: settings.lines });
};
// A click off the board cancels a premove (the path: the board redraws under the click).
document.addEventListener("pointerdown", (e) => {
  if ((board.premove || board.preFrom !== null) && !e.composedPath().includes($("board"))) board.setPremove(null);
});

// The analysis lines kept in the settings are asked for once per connection (a new server
// session starts with one).
let linesAsked = false;
let peeking = false;        // a variation's position is shown (protocol/gui/annotations.py)
let peeked = null;          // its request ({ply, moves}), for "Play from here"

// The sound of the move just played (none when stepping through the record).
function soundFor(before, m) {
  if (!settings.sound || !before || m.ply !== before.ply + 1 || m.record.length < m.ply) return;
  if (m.outcome && !before.outcome) playSound("end");
  else playSound(m.last && m.last.captured.length ? "capture" : "move");
}

// The person's side while the engine thinks: its pieces may be premoved.
function premoveSide(m) {
  if (!settings.premove || m.outcome || !m.task || m.task.mode !== "think") return null;
  const human = ["white", "black"].filter((s) => m.players[s].kind === "human");
  if (human.length !== 1 || human[0] === m.turn) return null;
  return human[0][0];
}

// Play the queued premove if the new position allows it; drop it otherwise.
function runPremove(m) {
  const p = board.premove;
  if (!p || !isHumanTurn(m) || m.task) return;
  board.premove = null;
  const fits = m.moves.filter((x) => x.from === p.from && x.to === p.to);
  if (fits.length === 1 && fits[0].paths.length <= 1) {
    const mv = { type: "move", from: p.from, to: p.to };
    if (fits[0].captured.length) mv.path = fits[0].paths[0];
    send(mv);
    $("message").textContent = "";
  } else {
    $("message").textContent = fits.length ? `premove ${p.from}-${p.to}: several captures fit, play it by hand`
      : `premove ${p.from}-${p.to} is not legal now: cancelled`;
    board.draw();
  }
}

// ----- messages from the server ---------------------------------------------------------
const handlers = {
  setup(m) {
    setup = m;
    adopt(m.game);                      // the address names the game (store.js)
    const copy = m.known ? null : savedCopy(m.game);
    if (copy) send({ type: "restore", saved: copy });   // a server that lost it gets it back
    const sel = $("new-variant");
    sel.replaceChildren();
    for (const v of m.variants) {
      const o = document.createElement("option");
      o.value = v.name; o.textContent = `${v.name} (${v.width}x${v.width})`;
      sel.appendChild(o);
    }
    const dl = $("levels");
    dl.replaceChildren();
    for (const name of [...m.levels, "depth 6", "time 1", "time 5"]) {
      const o = document.createElement("option"); o.value = name; dl.appendChild(o);
    }
  },
  state(m) {
    const before = state;
    const animate = state && m.ply === state.ply + 1 && m.last &&
      state.record.length >= 0 && m.variant === state.variant;
    state = m;
    keep(m);
    clocks.show(m);
    board.interactive = isHumanTurn(m);
    board.premoveSide = premoveSide(m);
    if (!board.premoveSide && !isHumanTurn(m)) board.premove = null;
    peeking = false;
    $("peek-bar").hidden = true;
    lines.sync(m);
    if (!editor.accepted(m)) board.set(m, animate);
    showState(m);
    review.show(m);
    if (board.premove) board.onPremove(board.premove);
    soundFor(before, m);
    if (before && (before.fen !== m.fen || before.variant !== m.variant)) board.preFrom = null;
    runPremove(m);
    if (m.multipv !== settings.lines && !linesAsked) { linesAsked = true; send({ type: "lines", count: settings.lines }); }
  },
  info(m) {
    if (!state) return;
    if (!editor.active && !peeking) lines.add(m, state);
    if (m.white !== null && (m.line || 1) === 1) {
      state.evals[String(m.ply)] = m.white;
      drawEval(state);
    }
  },
  engine(m) {
    const text = { idle: "not started", starting: "starting...", ready: "ready", failed: "failed" }[m.state] || m.state;
    const name = m.name || "engine";
    $("engine-status").textContent = `${name}: ${text}`;
    clearInterval(engineClock);
    if (m.state === "starting") {
      // A first run compiles the engine (about a minute): count the seconds so the page
      // shows it is working, and say why after a few.
      const since = Date.now();
      engineClock = setInterval(() => {
        const s = Math.round((Date.now() - since) / 1000);
        $("engine-status").textContent = s < 3 ? `${name}: starting...` :
          `${name}: starting, ${s} s (a first run compiles the engine: about a minute)`;
      }, 1000);
    }
    $("engine-fail").hidden = m.state !== "failed";
    $("engine-fail-text").textContent = m.state === "failed" ? `The engine failed: ${m.message}` : "";
  },
  pdn(m) {
    const blob = new Blob([m.text], { type: "application/x-pdn" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = m.filename;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 5000);
  },
  review(m) { review.message(m); },
  error(m) { if (!editor.refused(m.message)) showError(m.message); },
  peek(m) {
    if (!state || editor.active) return;
    peeking = true;                 // until the next state: the lines are of the game's position
    board.interactive = false;
    board.arrows = [];
    board.set({ ...state, pieces: m.pieces, moves: [], last: m.last, fen: m.fen, turn: m.turn });
    for (const a of document.querySelectorAll("#moves .var-move")) a.classList.remove("current", "pending");
    for (const s of document.querySelectorAll("#moves span.current")) s.classList.remove("current");
    const shown = [...document.querySelectorAll("#moves .var-move")].find((a) =>
      a.dataset.path === `${m.ply}|${m.moves.join(" ")}`);
    if (shown) shown.classList.add("current");
    $("message").textContent = `variation: ${m.moves.join(" ")} (the game is unchanged: choose a move of the game to go back)`;
    peeked = { ply: m.ply, moves: m.moves };
    $("peek-bar").hidden = false;
  },
};

function isHumanTurn(m) {
  if (m.outcome) return false;
  if (m.task && m.task.mode === "think") return false;
  return m.players[m.turn].kind === "human" || !m.running;
}

function showState(m) {
  showError("");
  const who = m.turn === "white" ? "White" : "Black";
  let status;
  if (m.outcome) status = `Game over. ${m.outcome.text}`;
  else if (m.task && m.task.mode === "think") status = `${who} to move: the engine is thinking (${m.task.level})`;
  else status = `${who} to move` + (m.players[m.turn].kind === "engine" && !m.running ? " (engine paused: Engine move or Play)" : "");
  $("status").textContent = status;
  $("message").textContent = m.message || "";
  if (!m.task) lines.clear();
  $("btn-stop").disabled = !m.task;
  $("btn-undo").disabled = m.ply === 0;
  $("btn-redo").disabled = m.ply >= m.record.length;
  $("btn-play").textContent = m.running ? "Pause" : "Play";
  $("btn-analyze").setAttribute("aria-pressed", String(m.analysing));
  $("move-input").disabled = !isHumanTurn(m);
  renderMoves(m, (ply) => send({ type: "goto", ply }), playLine);
  renderDatabase(m, (text) => send({ type: "move", text }));
  drawEval(m);
}

function drawEval(m) {
  // The latest evaluation at or before the shown ply.
  let score;
  for (let p = m.ply; p >= 0 && score === undefined; p--) score = m.evals[String(p)];
  const clamp = (x) => Math.max(-5, Math.min(5, x));
  const white = score === undefined ? 0 : clamp(score);
  $("evalbar-fill").style.height = `${50 + white * 10}%`;
  const label = $("evalbar-text");
  label.textContent = score === undefined ? "" : (score >= 0 ? "+" : "") + score.toFixed(2);
  label.dataset.side = score !== undefined && score < 0 ? "black" : "white";
  $("evalbar").classList.toggle("flipped", board.flipped);
  graph.draw(m);
}

// A variation's position, `texts` played from ply `ply` of the record: shown, the game
// unchanged (the server answers with a `peek`).
function playLine(ply, texts, link) {
  send({ type: "peek", ply, moves: texts });
  if (link) link.classList.add("pending");
}

// ----- requests -----------------------------------------------------------------------
function navigate(ply) {
  if (!state) return;
  const target = Math.max(0, Math.min(state.record.length, ply));
  if (target !== state.ply) send({ type: "goto", ply: target });
}

function replay() {
  if (replayTimer) { clearInterval(replayTimer); replayTimer = null; $("btn-replay").innerHTML = "&#9654;"; return; }
  if (state && state.ply >= state.record.length) navigate(0);
  $("btn-replay").textContent = "||";
  replayTimer = setInterval(() => {
    if (!state || state.ply >= state.record.length) { replay(); return; }
    navigate(state.ply + 1);
  }, 900);
}

$("btn-new").onclick = () => {
  if (state) $("new-variant").value = state.variant;
  $("new-dialog").showModal();
};
$("clock-kind").onchange = showClockFields;
$("new-delay").oninput = () => { $("new-delay-out").textContent = $("new-delay").value; };
$("new-form").addEventListener("submit", (e) => {
  if (e.submitter && e.submitter.value !== "start") return;
  const kind = (side) => document.querySelector(`input[name=${side}-kind]:checked`).value;
  send({ type: "speed", delay: Number($("new-delay").value) });
  send({ type: "new", variant: $("new-variant").value, fen: $("new-fen").value.trim(),
         white: { kind: kind("white"), level: $("white-level").value.trim() || "medium" },
         black: { kind: kind("black"), level: $("black-level").value.trim() || "medium" },
         clock: chosenClock() });
});
$("btn-undo").onclick = () => send({ type: "undo" });
$("btn-redo").onclick = () => send({ type: "redo" });
$("btn-go").onclick = () => send({ type: "go" });
$("btn-stop").onclick = () => send({ type: "stop" });
$("btn-play").onclick = () => send({ type: "play", on: !(state && state.running) });
$("btn-analyze").onclick = () => send({ type: "analyze", on: !(state && state.analysing) });
$("btn-flip").onclick = () => { board.flipped = !board.flipped; if (state) { board.draw(); drawEval(state); } };
$("btn-start").onclick = () => navigate(0);
$("btn-back").onclick = () => state && navigate(state.ply - 1);
$("btn-fwd").onclick = () => state && navigate(state.ply + 1);
$("btn-end").onclick = () => state && navigate(state.record.length);
$("btn-replay").onclick = replay;
$("btn-save").onclick = () => send({ type: "save" });
$("btn-restart").onclick = () => send({ type: "restart" });
$("btn-promote").onclick = () => { if (peeked) send({ type: "promote", ...peeked }); };
$("btn-copy-fen").onclick = async () => {
  if (!state) return;
  $("fen-input").value = state.fen;
  try { await navigator.clipboard.writeText(state.fen); $("message").textContent = "FEN copied"; }
  catch { $("message").textContent = "FEN shown in the set-up box"; }
};
$("fen-form").addEventListener("submit", (e) => {
  e.preventDefault();
  send({ type: "fen", fen: $("fen-input").value });
});
$("move-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("move-input").value.trim();
  if (text) send({ type: "move", text });
  $("move-input").value = "";
});
$("pdn-file").addEventListener("change", async () => {
  const file = $("pdn-file").files[0];
  if (!file) return;
  if (file.size > 1_000_000) { showError("that file is too big for a PDN game (over 1 MB)"); return; }
  send({ type: "load", text: await file.text() });
  $("pdn-file").value = "";
});
document.addEventListener("keydown", (e) => {
  if (e.target.closest("input, select, textarea, dialog")) return;
  const keys = { ArrowLeft: () => state && navigate(state.ply - 1), ArrowRight: () => state && navigate(state.ply + 1),
                 Home: () => navigate(0), End: () => state && navigate(state.record.length),
                 n: () => $("btn-new").click(), u: () => send({ type: "undo" }), r: () => send({ type: "redo" }),
                 g: () => send({ type: "go" }), s: () => send({ type: "stop" }), f: () => $("btn-flip").click(),
                 a: () => $("btn-analyze").click(), m: () => $("move-input").focus(),
                 c: () => toggle(board, "coords", settingChanged), e: () => $("btn-editor").click(),
                 v: () => review.toggle(), l: () => $("btn-learn").click() };
  const act = keys[e.key];
  if (act && !e.ctrlKey && !e.metaKey && !e.altKey) { e.preventDefault(); act(); }
});

// ----- the connection -----------------------------------------------------------------
function connect() {
  ws = new WebSocket(socketUrl());     // the server opens the game the address names
  ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    const h = handlers[m.type];
    if (h) h(m);
  };
  ws.onopen = () => {
    document.body.dataset.connected = "1";
    linesAsked = false;
  };
  ws.onclose = (ev) => {
    document.body.dataset.connected = "0";
    if (ev.code === 4001) {            // the game moved to another page: do not take it back
      showError("this game is open in another tab or window: reload this page to play it here");
      board.interactive = false;
      return;
    }
    showError("connection to Rafle lost: reconnecting (the game is kept; Save PDN works once back)");
    setTimeout(connect, 1500);
  };
}
connect();
