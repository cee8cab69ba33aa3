// The guided tour's controls (shell/tour/view.py, TourDeck): step counter, progress bar, back/next,
// chapter jump menu, fullscreen and leave buttons, the step's text, and the keys
//   → / Space / PageDown next · ← / PageUp back · Esc leave   (F for fullscreen is the shell's ShellKeys
//   handler; a presenter's clicker sends PageDown and PageUp)
// Keys are ignored while focus is in a text field, textarea, select or slider, and Space is left
// alone on buttons and links (it presses them). Moving sets `model.step`; Python swaps the live
// components under the text and then sets `model.rendered`. The URL follows as ?tour=N.

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v);
  }
  for (const c of children) el.append(c);
  return el;
}

// Every element under `root`, through shadow roots (Panel and Bokeh draw in shadow DOM).
function deepAll(root, out = []) {
  const kids = root.shadowRoot ? [...root.shadowRoot.children, ...root.children] : [...root.children];
  for (const el of kids) { out.push(el); deepAll(el, out); }
  return out;
}
function deepFind(root, cls) {
  const kids = root.shadowRoot ? [...root.shadowRoot.children, ...root.children] : [...root.children];
  for (const el of kids) {
    if (el.classList && el.classList.contains(cls)) return el;
    const found = deepFind(el, cls);
    if (found) return found;
  }
  return null;
}
const ownText = (el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
// Folded away: inside a closed <details> (its summary excepted), which Chromium still lays out, so
// its text has boxes below the step that nobody sees.
function folded(el) {
  for (let a = el, from = null; a; from = a, a = a.parentElement || (a.getRootNode() && a.getRootNode().host) || null)
    if (a.tagName === "DETAILS" && !a.open && !(from && from.tagName === "SUMMARY")) return true;
  return false;
}

// Is this key press meant for a control rather than for the tour?
function ownedByControl(e, key) {
  for (const t of e.composedPath()) {
    if (!t || !t.tagName) continue;
    const tag = t.tagName.toLowerCase();
    const role = (t.getAttribute && t.getAttribute("role")) || "";
    if (tag === "input" || tag === "textarea" || tag === "select" || t.isContentEditable) return true;
    if (role === "slider" || role === "textbox" || role === "listbox" || role === "combobox" ||
        role === "spinbutton" || (t.classList && t.classList.contains("noUi-handle"))) return true;
    if (key === " " && (tag === "button" || tag === "a" || tag === "summary" || role === "button" ||
                        role === "link" || role === "radio" || role === "checkbox" || role === "tab")) return true;
    if (tag === "body" || tag === "html") break;
  }
  return false;
}

export function render({ model }) {
  const total = model.steps.length;
  // the controls' words, in the page's language (shell/tour/view.py: deck_words); "{n}", "{total}" filled here
  const words = model.words;
  const fill = (template, n) => template.replace("{n}", String(n)).replace("{total}", String(total));
  const root = h("div", { class: "tour-deck" });

  const exit = h("a", { class: "tour-exit", href: "?" });
  exit.append(h("span", { "aria-hidden": "true", text: "✕ " }), `${words.leave} `,
              h("kbd", { text: "Esc" }));
  const select = h("select", { class: "tour-jump", id: "tour-jump" });
  for (const c of model.chapters) select.append(h("option", { value: String(c.first), text: c.label }));
  const jump = h("label", { class: "tour-jump-label tour-sr", for: "tour-jump" }, words.chapter);
  const back = h("button", { class: "tour-back", type: "button", "aria-keyshortcuts": "ArrowLeft PageUp" });
  back.append(h("span", { "aria-hidden": "true", text: "← " }), words.back);
  const counter = h("span", { class: "tour-counter" });
  const next = h("button", { class: "tour-next", type: "button", "aria-keyshortcuts": "ArrowRight Space PageDown" });
  next.append(words.next, h("span", { "aria-hidden": "true", text: " →" }));
  const fs = h("button", { class: "tour-fs", type: "button", "aria-pressed": "false", "aria-keyshortcuts": "F" });
  fs.append(`${words.fullscreen} `, h("kbd", { text: "F" }));
  const bar = h("nav", { class: "tour-bar", "aria-label": words.bar },
                exit, h("span", { class: "tour-jump-wrap" }, jump, select),
                h("span", { class: "tour-move" }, back, counter, next), fs);

  const barFill = h("div", { class: "tour-fill" });
  const progress = h("div", { class: "tour-progress", role: "progressbar", "aria-label": words.progress,
                              "aria-valuemin": "1", "aria-valuemax": String(total) }, barFill);
  const where = h("p", { class: "tour-where" });
  const text = h("h1", { class: "tour-text", tabindex: "-1" });
  const live = h("div", { class: "tour-sr", "aria-live": "polite" });
  root.append(bar, progress, h("div", { class: "tour-head" }, where, text), live);

  let current = 0;
  function show(n) {
    const s = model.steps[n - 1];
    current = n;
    counter.textContent = `${n} / ${total}`;
    counter.setAttribute("aria-label", fill(words.of, n));
    barFill.style.width = `${(100 * n) / total}%`;
    progress.setAttribute("aria-valuenow", String(n));
    progress.setAttribute("aria-valuetext", fill(words.of, n));
    where.textContent = s.where;
    text.textContent = s.text;
    live.textContent = `${fill(words.announce, n)} ${s.where}. ${s.text}`;
    exit.setAttribute("href", s.exit);
    back.disabled = n <= 1;
    next.disabled = n >= total;
    select.value = String(model.chapters.reduce((acc, c) => (c.first <= n ? c.first : acc), 1));
    const url = new URL(window.location.href);
    url.searchParams.delete("chapter");
    url.searchParams.set("tour", String(n));
    if (url.href !== window.location.href) window.history.replaceState(window.history.state, "", url.href);
    document.documentElement.dataset.tourStep = String(n);
    if (typeof zoomChips === "function" && chipZoom !== 1) zoomChips(1);
  }
  function go(n) {
    n = Math.min(Math.max(n, 1), total);
    if (n === current) return;
    show(n);
    model.step = n;
  }
  function leave() { window.location.href = model.steps[current - 1].exit; }
  function toggleFullscreen() {
    if (document.fullscreenElement) document.exitFullscreen();
    else if (document.documentElement.requestFullscreen) document.documentElement.requestFullscreen();
  }

  back.addEventListener("click", () => go(current - 1));
  next.addEventListener("click", () => go(current + 1));
  fs.addEventListener("click", toggleFullscreen);
  select.addEventListener("change", () => { go(Number(select.value)); text.focus(); });
  const onFullscreen = () => fs.setAttribute("aria-pressed", document.fullscreenElement ? "true" : "false");
  document.addEventListener("fullscreenchange", onFullscreen);

  // One document-level handler per page, always driving the latest render.
  window.__speclabTour = { go: (d) => go(current + d), leave };
  if (!window.__speclabTourKeys) {
    window.__speclabTourKeys = true;
    document.addEventListener("keydown", (e) => {
      const tour = window.__speclabTour;
      if (!tour || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      const key = e.key;
      const forward = key === "ArrowRight" || key === " " || key === "PageDown";
      const backward = key === "ArrowLeft" || key === "PageUp";
      if (!forward && !backward && key !== "Escape") return;
      if (ownedByControl(e, key)) return;
      if (key === "Escape") {
        if (document.fullscreenElement) return;   // the browser leaves fullscreen first
        e.preventDefault(); tour.leave(); return;
      }
      e.preventDefault();
      tour.go(backward ? -1 : 1);
    });
  }

  // Projector mode for the whole page while the tour is open (sidebar and header hidden), and a
  // scale: how much larger than 1280×720 the screen is. The type grows through CSS (--speclab-scale);
  // Python resizes the step's fixed-size widgets and figures to match.
  document.documentElement.classList.add("speclab-tour");
  const fitScale = () => {
    const k = Math.min(window.innerWidth / 1280, window.innerHeight / 720);
    const scale = Math.min(2, Math.max(1, Math.floor(k * 20) / 20));
    document.documentElement.style.setProperty("--speclab-scale", String(scale));
    if (model.scale !== scale) model.scale = scale;
  };
  fitScale();
  if (!window.__speclabTourResize) {
    let timer = null;
    window.__speclabTourResize = true;
    window.addEventListener("resize", () => { clearTimeout(timer); timer = setTimeout(() => window.__speclabTourFit(), 250); });
  }
  if (!document.getElementById("speclab-tour-page-css")) {
    const style = h("style", { id: "speclab-tour-page-css" });
    style.textContent = model.page_css;
    document.head.append(style);
  }

  // The page's content area is its main landmark (the template marks none).
  const main = document.getElementById("main");
  if (main && !main.getAttribute("role")) main.setAttribute("role", "main");
  const afterRender = () => {
    // the shell's accessibility pass (assets/shell.js) names the new step's controls
    for (const ms of [100, 800, 2500]) setTimeout(() => window.__speclabA11y && window.__speclabA11y(), ms);
    document.documentElement.dataset.tourRendered = String(model.rendered);
  };
  model.on("rendered", afterRender);

  // Fill the screen: once a step is drawn (and whenever its content changes size), report the free
  // room under and beside its content; Python grows the step's figures into it (shell/tour/fit.py).
  // Growing takes a few rounds at most, so a step that cannot grow stops asking; 30 rounds a step in
  // all. A step that outgrew the screen always shrinks, however many rounds it took (a race filling
  // its strips chip by chip, step 3 after Write, takes many: issue 49), and may then grow again (its
  // content changed); the same lack of room is sent again only within the 30 rounds (a figure at its
  // smallest stays) and not while the last shrink is still on its way (a busy server).
  let fitTimer = null, fitStep = 0, fitRounds = 0, growRounds = 0;
  let sent = null, sentAt = 0, seq = 0;     // the last room sent, when; each report unlike the last
  let overZoom = Infinity;        // the smallest zoom at which this step scrolled: it never grows back to it
  // a step whose figures shrank for content that later went away (a progress line while a press or a
  // prefetch ran): with its figures' sizes unchanged (`drawn`), content that ends well above where it
  // ended before gives the figures back their sizes (restore), and they grow into the room from there
  let shrunk = false, drawn = "", lowest = 0, sentDrawn = "";
  let chipZoom = 1, stageZoom = 1;
  const STAGE_FILL = 0.9, STAGE_ZOOM_MIN = 0.75, STAGE_ZOOM_MAX = 1.8;
  // a step still off the screen at the least zoom (only a language far longer than English, such as
  // the pseudo-locale) goes on down to STAGE_ZOOM_LAST: smaller type, but nothing cut off
  const STAGE_ZOOM_LAST = 0.6;
  const leastZoom = () => (stageZoom <= STAGE_ZOOM_MIN + 0.005 ? STAGE_ZOOM_LAST : STAGE_ZOOM_MIN);
  function zoomChips(k) {
    chipZoom = Math.min(Math.max(k, 1), 1.6);
    const style = document.documentElement.style;
    if (chipZoom === 1) {
      style.removeProperty("--speclab-chip-size"); style.removeProperty("--speclab-chip-button-size");
    } else {
      style.setProperty("--speclab-chip-size", `${(1.45 * chipZoom).toFixed(2)}rem`);
      style.setProperty("--speclab-chip-button-size", `${(1.4 * chipZoom).toFixed(2)}rem`);
    }
  }
  const measureFit = () => {
    const n = model.rendered;
    if (!n || n !== current) return;
    const stage = deepFind(document.body, "tour-stage");
    if (n !== fitStep) { fitStep = n; fitRounds = 0; growRounds = 0; overZoom = Infinity; sent = null; shrunk = false; drawn = ""; }
    if (!stage) return;
    // the stage's box, and its components' boxes (Bokeh sizes them), may stay put while what they
    // hold grows (a button pressed on the step adds chips): watch each component's content too
    // (observing a node twice only renews it)
    if (!window.__speclabTourMutations)
      window.__speclabTourMutations = new MutationObserver(() => window.__speclabTourAskFit());
    for (const el of deepAll(stage)) {
      if (!el.shadowRoot) continue;
      if (window.__speclabTourObserver) window.__speclabTourObserver.observe(el);
      window.__speclabTourMutations.observe(el.shadowRoot, { childList: true, subtree: true, characterData: true });
    }
    let bottom = 0, right = 0;
    for (const el of deepAll(stage)) {
      const tag = el.tagName.toLowerCase();
      if (tag !== "canvas" && tag !== "input" && tag !== "button" && tag !== "select" && tag !== "img" &&
          tag !== "svg" && !ownText(el)) continue;
      let r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1 || r.right < 0 || folded(el)) continue;
      if (ownText(el) && tag !== "button") {       // the text itself, not its (often full-width) block
        const range = document.createRange();
        range.selectNodeContents(el);
        r = range.getBoundingClientRect();
      }
      bottom = Math.max(bottom, r.bottom); right = Math.max(right, r.right);
    }
    if (!bottom) return;
    bottom = Math.max(bottom, stage.getBoundingClientRect().bottom);   // with the cards' padding and borders
    bottom += Number(getComputedStyle(document.documentElement).getPropertyValue("--speclab-notice-room")) || 0;   // the export's note at the foot
    const room = { step: n, height: Math.floor(window.innerHeight - bottom - 14),
                   width: Math.floor(window.innerWidth - right - 26) };
    // a step without a figure: its chips grow first (or shrink back) with the free height, then the
    // whole step (CSS zoom; its text reflows) until it fills about STAGE_FILL of the height under
    // the deck, or shrinks back when it no longer fits, down or sideways
    if (!deepAll(stage).some((el) => el.tagName === "CANVAS" && el.getBoundingClientRect().width > 1)) {
      const chips = deepAll(stage).some((el) => el.classList && el.classList.contains("chip"));
      const grow = chips && room.height > 0.25 * window.innerHeight && chipZoom < 1.6 && stageZoom === 1 &&
                   fitRounds < 30;
      const shrink = chips && room.height < 0 && chipZoom > 1 && stageZoom === 1;
      if (grow || shrink) {
        fitRounds += 1;
        zoomChips(grow ? chipZoom + 0.3 : chipZoom - 0.3);
        askFit();           // the stage keeps its box while its chips grow: no resize to wait for
        return;
      }
      const main = document.getElementById("main");      // the page scrolls: that much too tall
      if (main && main.scrollHeight > main.clientHeight + 2)
        room.height = Math.min(room.height, main.clientHeight - main.scrollHeight);
      const top = stage.getBoundingClientRect().top, used = bottom - top;
      // the height asks for a zoom, the width may limit it (a step too wide shrinks)
      let zoom = used > 0 ? stageZoom * Math.min(STAGE_FILL * (window.innerHeight - 14 - top) / used, 2) : stageZoom;
      if (room.width < -2) zoom = Math.min(zoom, stageZoom * (window.innerWidth - 26) / right);
      zoom = Math.min(Math.max(zoom, room.height < 0 ? leastZoom() : 1), STAGE_ZOOM_MAX);   // below 1: it scrolled
      // growing takes a few rounds at most; a step that outgrew the screen (a button pressed on it
      // added content) may always shrink, and grow again once its content settles
      const over = room.height < 0 || room.width < -2;
      // text reflows, so a step that fits at 0.75 may scroll at 1: grow at most halfway to a zoom
      // that scrolled, never back to it (no round trips between the two)
      if (over) overZoom = Math.min(overZoom, stageZoom);
      else if (zoom > stageZoom) zoom = Math.min(zoom, (stageZoom + overZoom) / 2);
      if (Math.abs(zoom - stageZoom) > 0.03 && (over || (growRounds < 6 && fitRounds < 30))) {
        fitRounds += 1;
        growRounds = over ? 0 : growRounds + 1;
        stageZoom = zoom;
        stage.style.zoom = zoom === 1 ? "" : zoom.toFixed(3);
        askFit();
      }
      return;
    }
    // (room keeps a 14 px margin under the content: below 0 the step is about to scroll)
    const over = room.height < 0 || room.width < 0;
    const sizes = deepAll(stage).filter((el) => el.tagName === "CANVAS")
      .map((el) => { const r = el.getBoundingClientRect(); return `${Math.round(r.width)}x${Math.round(r.height)}`; }).join();
    if (sizes !== drawn) { drawn = sizes; lowest = bottom; } else lowest = Math.max(lowest, bottom);
    if (over) shrunk = true;
    else if (shrunk && lowest - bottom > 40) {
      shrunk = false; fitRounds = 0; growRounds = 0; sent = null; drawn = "";
      if (stageZoom !== 1) { stageZoom = 1; stage.style.zoom = ""; }
      model.room = { ...room, restore: true, seq: ++seq };
      return;
    }
    if (!over && room.height < 24 && room.width < 48) return;   // fits
    // figures grow for a few rounds, then the step stays; a step that outgrew the screen (a button
    // pressed on it added chips or text, a race filled its strips) always shrinks them again
    if (!over && (growRounds >= 4 || fitRounds >= 30)) return;
    const again = sent && sent.height === room.height && sent.width === room.width;
    // still off the screen with its figures as they were when the lack of room was sent (at their
    // smallest, or not what makes the step tall: a long list of choices, longer text in another
    // language), or past the 30 rounds with the same lack of room whatever the figures did: the
    // whole step zooms out, as a step without figures does
    const page = document.getElementById("main");                // the page scrolls: past the screen's edge
    const beyond = !!page && (page.scrollHeight > page.clientHeight + 2 || page.scrollWidth > page.clientWidth + 2);
    if (beyond && again && (sizes === sentDrawn || fitRounds >= 30) && performance.now() - sentAt >= 1500 &&
        stageZoom > STAGE_ZOOM_LAST + 0.005) {
      const top = stage.getBoundingClientRect().top;
      let zoom = stageZoom * (window.innerHeight - 14 - top) / Math.max(bottom - top, 1);
      if (room.width < 0) zoom = Math.min(zoom, stageZoom * (window.innerWidth - 26) / right);
      zoom = Math.max(Math.min(zoom, stageZoom - 0.02), leastZoom());
      fitRounds += 1;
      stageZoom = zoom;
      stage.style.zoom = zoom.toFixed(3);
      askFit();
      return;
    }
    if (again && (fitRounds >= 30 || performance.now() - sentAt < 1500)) return;
    fitRounds += 1;
    growRounds = over ? 0 : growRounds + 1;
    sent = room; sentAt = performance.now(); sentDrawn = sizes;
    model.room = { ...room, seq: ++seq };    // a lack of room like the last one is still news
  };
  const askFit = () => { clearTimeout(fitTimer); fitTimer = setTimeout(measureFit, 400); };
  // a new step is drawn at its own size first (not the last step's zoom), then fitted afresh
  const unzoom = () => {
    const stage = deepFind(document.body, "tour-stage");
    if (stage && stageZoom !== 1) { stageZoom = 1; stage.style.zoom = ""; }
    if (chipZoom !== 1) zoomChips(1);
  };
  model.on("rendered", () => { unzoom(); askFit(); });
  // a step that has come to scroll (its content grew where no observer saw it) is fitted again at
  // once: a cheap check, four times a second
  if (!window.__speclabTourOverflow) {
    window.__speclabTourOverflow = setInterval(() => {
      const m = document.getElementById("main");
      if (m && m.scrollHeight > m.clientHeight + 2 && window.__speclabTourMeasure) window.__speclabTourMeasure();
    }, 250);
  }
  window.__speclabTourMeasure = measureFit;
  window.__speclabTourAskFit = askFit;
  // a new window size (a laptop plugged into the projector): new scale, and the step fits anew
  window.__speclabTourFit = () => { fitScale(); fitRounds = 0; growRounds = 0; askFit(); };
  if (!window.__speclabTourObserver) {
    // a step's content changes size as Bokeh lays it out, and when its figures grow
    window.__speclabTourObserver = new ResizeObserver(() => window.__speclabTourAskFit());
    const watch = () => {
      const stage = deepFind(document.body, "tour-stage");
      if (stage) window.__speclabTourObserver.observe(stage); else setTimeout(watch, 200);
    };
    watch();
  }
  show(model.step);
  if (model.rendered) afterRender();
  return root;
}
