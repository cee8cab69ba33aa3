// The guided tour's frame page of the export (tour.html, export/deck.py): the step pages
// (tour-N.html) open inside its full-window frame, and this page, which never changes, is the one
// that goes fullscreen, so fullscreen lasts from step to step. A step asks for fullscreen by
// message (assets/export-frame.js; the key press's activation reaches this page); the frame page
// also takes the tour's keys itself while it has the focus. Its address follows the step
// (#step=N), so a reload or a bookmark reopens that step, with the presses carried from the
// chapter's earlier steps when it is a reload (assets/export-tour.js, `resume`).
(function () {
  "use strict";
  const frame = document.getElementById("speclab-tour-frame");
  const steps = Math.max(1, Number(document.documentElement.dataset.tourSteps) || 1);
  const home = document.documentElement.dataset.home || "index.html";   // absent.html when not exported
  const clamp = (n) => Math.min(Math.max(n, 1), steps);
  const stepIn = (text) => { const m = /step=(\d+)/.exec(text || ""); return m ? clamp(Number(m[1])) : 1; };
  const nav = performance.getEntriesByType ? performance.getEntriesByType("navigation")[0] : null;
  let resume = Boolean(nav && (nav.type === "reload" || nav.type === "back_forward"));
  let step = stepIn(location.hash);

  function open(n) {
    step = n;
    frame.src = `tour-${n}.html${resume ? "?resume" : ""}`;
    resume = false;
  }

  function follow(n) {
    step = n;
    const hash = `#step=${n}`;
    if (location.hash === hash) return;
    try { history.replaceState(history.state, "", hash); } catch (e) { location.replace(hash); }
  }

  function tell(message) {
    if (frame.contentWindow) frame.contentWindow.postMessage(Object.assign({ speclab: "tour-wrapper" }, message), "*");
  }

  // The tour's keys taken here while the step's page is being left are held until the next page
  // says it is there (a message then would reach no page); that page holds them until its tour is
  // drawn (assets/export-frame.js).
  let leaving = true, held = 0;
  function go(d) {
    if (leaving) held += d;
    else tell({ go: d });
  }

  function fullscreen(on) {
    if (on && !document.fullscreenElement && document.documentElement.requestFullscreen)
      document.documentElement.requestFullscreen().catch(() => tell({ fullscreen: false }));
    else if (!on && document.fullscreenElement) document.exitFullscreen().catch(() => {});
  }

  window.addEventListener("message", (e) => {
    const m = e.data;
    if (e.source !== frame.contentWindow || !m || m.speclab !== "tour-frame") return;
    if ("page" in m) {
      if (!m.step) { location.href = m.page; return; }     // left the tour: that page takes this one's place
      follow(m.step);
      if (m.title) document.title = m.title;
      tell({ fullscreen: Boolean(document.fullscreenElement) });
      leaving = false;
      if (held) tell({ go: held });
      held = 0;
    }
    if (m.leaving) leaving = true;
    if ("fullscreen" in m) fullscreen(m.fullscreen);
  });
  document.addEventListener("fullscreenchange", () => tell({ fullscreen: Boolean(document.fullscreenElement) }));
  window.addEventListener("hashchange", () => { if (stepIn(location.hash) !== step) open(stepIn(location.hash)); });
  frame.addEventListener("load", () => frame.focus());

  // the tour's keys while this page has the focus (a click beside the frame); in the frame, the step's own
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    const key = e.key;
    if (key === "f" || key === "F") fullscreen(!document.fullscreenElement);
    else if (key === "ArrowRight" || key === " " || key === "PageDown") go(1);
    else if (key === "ArrowLeft" || key === "PageUp") go(-1);
    else if (key === "Escape" && !document.fullscreenElement) location.href = home;
    else return;
    e.preventDefault();
  });
  open(step);
})();
