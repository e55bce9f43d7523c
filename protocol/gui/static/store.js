// The page's game: its id in the address (/?game=ID) and a copy in localStorage, so that a
// reload, a lost connection or a restarted server finds the game again.  The server keeps
// the game under its id; a server that does not know the id is sent the page's copy.
const PREFIX = "rafle.game.";
const MOST_KEPT = 50;          // games kept in this browser, the latest ones

export function gameId() {
  return new URLSearchParams(location.search).get("game");
}

export function socketUrl() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const id = gameId();
  return `${proto}//${location.host}/ws` + (id ? `?game=${encodeURIComponent(id)}` : "");
}

// The server named the game: the address says it from now on (a reload opens it again).
export function adopt(id) {
  if (!id || gameId() === id) return;
  const url = new URL(location.href);
  url.searchParams.set("game", id);
  history.replaceState(null, "", url);
}

export function keep(state) {
  if (!state.game || !state.saved) return;
  try {
    localStorage.setItem(PREFIX + state.game, JSON.stringify({ at: Date.now(), saved: state.saved }));
    prune();
  } catch { /* storage full or off: the server's copy remains */ }
}

export function savedCopy(id) {
  try {
    const entry = JSON.parse(localStorage.getItem(PREFIX + id));
    return entry && entry.saved ? entry.saved : null;
  } catch { return null; }
}

function prune() {
  const keys = [];
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (k && k.startsWith(PREFIX)) keys.push(k);
  }
  if (keys.length <= MOST_KEPT) return;
  const at = (k) => { try { return JSON.parse(localStorage.getItem(k)).at || 0; } catch { return 0; } };
  keys.sort((a, b) => at(a) - at(b));
  for (const k of keys.slice(0, keys.length - MOST_KEPT)) localStorage.removeItem(k);
}
