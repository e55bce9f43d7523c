// The person's settings: kept in localStorage, applied to the page and the board, and the
// Settings dialog that changes them.  Nothing here talks to the server but `lines`.
const KEY = "rafle.settings";
const DEFAULTS = {
  coords: true,          // coordinates at the board's edge
  numbers: false,        // square numbers inside the squares
  board: "wood",         // board colours: wood, green, blue, contrast
  pieces: "classic",     // piece set: classic, flat, contrast
  sound: true,
  animate: true,
  premove: true,
  arrows: true,
  lines: 1,              // analysis lines (1-5)
};
const CHOICES = {
  board: ["wood", "green", "blue", "contrast"],
  pieces: ["classic", "flat", "contrast"],
};

function load() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch { saved = {}; }
  const out = { ...DEFAULTS };
  for (const [k, v] of Object.entries(saved)) {
    if (!(k in DEFAULTS) || typeof v !== typeof DEFAULTS[k]) continue;
    if (CHOICES[k] && !CHOICES[k].includes(v)) continue;
    if (k === "lines" && !(Number.isInteger(v) && v >= 1 && v <= 5)) continue;
    out[k] = v;
  }
  return out;
}

export const settings = load();

export function save() {
  try { localStorage.setItem(KEY, JSON.stringify(settings)); } catch { /* private mode: kept for this page */ }
}

// Put the settings on the page (themes are CSS: body[data-board], body[data-pieces]) and
// on the board.
export function apply(board) {
  document.body.dataset.board = settings.board;
  document.body.dataset.pieces = settings.pieces;
  board.coords = settings.coords;
  board.numbers = settings.numbers;
  board.animateMoves = settings.animate;
}

// The dialog's inputs are named after the settings (data-setting="coords").
export function initDialog(board, onChange) {
  const dialog = document.getElementById("settings-dialog");
  const inputs = dialog.querySelectorAll("[data-setting]");
  const show = () => {
    for (const input of inputs) {
      const v = settings[input.dataset.setting];
      if (input.type === "checkbox") input.checked = v;
      else input.value = String(v);
    }
  };
  for (const input of inputs) {
    input.addEventListener("change", () => {
      const k = input.dataset.setting;
      settings[k] = input.type === "checkbox" ? input.checked
        : typeof DEFAULTS[k] === "number" ? Number(input.value) : input.value;
      save();
      apply(board);
      onChange(k);
    });
  }
  document.getElementById("btn-settings").onclick = () => { show(); dialog.showModal(); };
  show();
  return { show };
}

// Flip one boolean setting (the keyboard's `c`), as the dialog would.
export function toggle(board, key, onChange) {
  settings[key] = !settings[key];
  save();
  apply(board);
  onChange(key);
}
