// An exported page inside the guided tour's frame page (tour.html: export/deck.py,
// assets/export-wrapper.js). It tells the frame page which page it is (so the frame page's address
// follows the step, and a page outside the tour takes the frame page's place). On a tour step,
// fullscreen is the frame page's: the page's own asks (F, the tour's Fullscreen button) go to it
// by message (a file:// frame is another origin to its parent), and `document.fullscreenElement`
// says whether the frame page is fullscreen, so the tour's Esc and toggles read it as the served
// tour reads its own. A page opened by itself, or framed by another page, is left as it is.
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
    if (m.go && window.__speclabTour) window.__speclabTour.go(m.go);
  });
})();
