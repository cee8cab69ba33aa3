// An exported page inside the guided tour's frame page (tour.html: export/deck.py,
// assets/export-wrapper.js). It tells the frame page which page it is (so the frame page's address
// follows the step, and a page outside the tour takes the frame page's place). On a tour step,
// fullscreen is the frame page's: the page's own asks (F, the tour's Fullscreen button) go to it
// by message (a file:// frame is another origin to its parent), and `document.fullscreenElement`
// says whether the frame page is fullscreen, so the tour's Esc and toggles read it as the served
// tour reads its own. It is the page's first script (export/site.py), so a tour key pressed while
// the rest loads waits for the step's tour. A page opened by itself, or framed by another page, is
// left as it is.
(function () {
  "use strict";
  if (window.parent === window) return;
  const parent = window.parent;
  const post = (message) => parent.postMessage(Object.assign({ speclab: "tour-frame" }, message), "*");
  const file = decodeURIComponent(location.pathname.split("/").pop() || "index.html");
  const match = /^tour-(\d+)\.html$/.exec(file);
  post({ page: file, step: match ? Number(match[1]) : null, title: document.title });
  if (!match) return;
  let full = false, framed = false;
  // once the frame page answers (a page framed by another site keeps the browser's own fullscreen)
  function frameFullscreen() {
    framed = true;
    Object.defineProperty(document, "fullscreenElement", {
      configurable: true, get: () => (full ? document.documentElement : null),
    });
    document.documentElement.requestFullscreen = () => { post({ fullscreen: true }); return Promise.resolve(); };
    document.exitFullscreen = () => { post({ fullscreen: false }); return Promise.resolve(); };
  }
  window.addEventListener("message", (e) => {
    const m = e.data;
    if (e.source !== parent || !m || m.speclab !== "tour-wrapper") return;
    if (!framed) frameFullscreen();
    if ("fullscreen" in m && full !== Boolean(m.fullscreen)) {
      full = Boolean(m.fullscreen);
      document.dispatchEvent(new Event("fullscreenchange"));
    }
    if (m.go) key(m.go > 0 ? "ArrowRight" : "ArrowLeft", Math.abs(m.go));
  });

  // A tour key pressed before the step's tour is drawn (the page still loading: → pressed twice in
  // a row, or while a press reloads the step) waits for it, as one the frame page passes on does;
  // then each goes to the page as the key it was (assets/tour.js moves the tour, the last exported
  // step says where the rest is: assets/export.js).
  const waiting = [];
  let timer = null;
  const ready = () => Boolean(window.__speclabTour) && document.documentElement.dataset.exportReady === "1";
  const send = (name) => document.dispatchEvent(new KeyboardEvent("keydown", { key: name, cancelable: true }));
  function key(name, times) {
    for (let i = 0; i < times; i += 1) waiting.push(name);
    flush();
    if (waiting.length && !timer) timer = setInterval(flush, 50);
  }
  function flush() {
    if (!ready()) return;
    clearInterval(timer);
    timer = null;
    waiting.splice(0).forEach(send);
  }
  const TOUR_KEYS = new Set(["ArrowRight", " ", "PageDown", "ArrowLeft", "PageUp"]);
  document.addEventListener("keydown", (e) => {
    const tag = (e.target && e.target.tagName || "").toLowerCase();
    if (!e.isTrusted || ready() && !waiting.length || e.ctrlKey || e.metaKey || e.altKey || !TOUR_KEYS.has(e.key) ||
        tag === "input" || tag === "textarea" || tag === "select" || (e.target && e.target.isContentEditable)) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    key(e.key, 1);
  }, true);
  // the frame page holds the keys it takes while this page is being left, until the next says it is there
  window.addEventListener("pagehide", () => post({ leaving: true }));
})();
