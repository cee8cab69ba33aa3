// The shell's page-wide helper (shell/frame/app.py, ShellKeys), on every page of the lab:
//  - F toggles fullscreen (outside text fields);
//  - remembers this browser in a cookie;
//  - says in one sentence when the page's server went away (its websocket closed while the page
//    stayed open: the machine stopped, or the network dropped): a reload opens the page afresh, on
//    another machine where several serve the class, with the student's answers and settings kept;
//  - reports the browser's prefers-reduced-motion setting (chapter 1's replay reads it);
//  - fills in the accessibility the template and Bokeh leave out: a main landmark, the sidebar list's
//    role, names for slider handles and spin buttons, and a visible focus ring on a figure's
//    keyboard layer. Widgets appear as pages update (most inside Bokeh's shadow roots, which a
//    document-wide observer does not see), so a MutationObserver watches the document and every shadow
//    root it meets, and runs the fill once per animation frame after changes. The tour also calls it
//    (window.__speclabA11y) right after it swaps a step's components in.

const FOCUS_CSS = ".bk-events:focus-visible { outline: 3px solid #ffbf47 !important; " +
                  "outline-offset: -3px; box-shadow: inset 0 0 0 6px #1b1b1f; }";

const watched = new WeakSet();     // the document and the shadow roots the observer watches
let pending = false;
const observer = new MutationObserver(() => {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; fillAccessibility(document); });
});

function watch(root) {
  if (watched.has(root)) return;
  watched.add(root);
  observer.observe(root, { childList: true, subtree: true });
}

function fillAccessibility(root) {
  watch(root);
  for (const el of root.querySelectorAll("*")) if (el.shadowRoot) fillAccessibility(el.shadowRoot);
  for (const handle of root.querySelectorAll(".noUi-handle:not([aria-label])")) {
    const title = root.querySelector(".bk-slider-title");
    let text = "";
    if (title) {
      const copy = title.cloneNode(true);
      copy.querySelectorAll(".bk-slider-value").forEach((v) => v.remove());
      text = copy.textContent.replace(/[:\s]+$/, "").trim();
    }
    handle.setAttribute("aria-label", text || "slider");
  }
  for (const b of root.querySelectorAll(".bk-spin-btn-up:not([aria-label])")) b.setAttribute("aria-label", "increase");
  for (const b of root.querySelectorAll(".bk-spin-btn-down:not([aria-label])")) b.setAttribute("aria-label", "decrease");
  // a figure's event layer takes keyboard focus; Bokeh's own ring is a faint dotted line
  if (root instanceof ShadowRoot && root.querySelector(".bk-events") && !root.querySelector("style.speclab-focus")) {
    const style = document.createElement("style");
    style.className = "speclab-focus";
    style.textContent = FOCUS_CSS;
    root.append(style);
  }
}

const LOST = "The server of this page went away: reload the page to carry on, with your answers " +
             "and settings kept.";

function sayLost() {
  if (document.getElementById("speclab-lost")) return;
  const box = document.createElement("div");
  box.id = "speclab-lost";
  box.setAttribute("role", "alert");
  box.style.cssText = "position: fixed; top: 12px; left: 50%; transform: translateX(-50%); z-index: 10000; " +
    "max-width: min(92vw, 720px); padding: 14px 18px; border: 3px solid #8a4b00; border-radius: 10px; " +
    "background: #fff4d6; color: #1b1b1f; font-size: 1.2rem; box-shadow: 0 4px 16px rgba(0,0,0,.25);";
  const text = document.createElement("p");
  text.style.margin = "0 0 10px 0";
  text.textContent = LOST;
  const reload = document.createElement("button");
  reload.type = "button";
  reload.textContent = "Reload the page";
  reload.style.cssText = "font-size: 1.1rem; padding: 6px 14px;";
  reload.addEventListener("click", () => window.location.reload());
  box.append(text, reload);
  document.body.append(box);
  reload.focus();
}

export function render({ model }) {
  const main = document.getElementById("main");
  if (main && !main.getAttribute("role")) main.setAttribute("role", "main");
  // the template puts the sidebar's panes (divs) straight into a <ul>
  document.querySelectorAll("#sidebar ul.nav").forEach((ul) => ul.setAttribute("role", "none"));
  window.__speclabA11y = () => fillAccessibility(document);
  window.__speclabA11y();      // and from now on after every change (the observer)
  document.cookie = "speclab_id=" + model.browser_id + "; path=/; SameSite=Lax; max-age=604800";
  // Bokeh announces a closed websocket to the page (never on leaving it: a reload or a link);
  // the lab does not reconnect a page, whose session lived on the server that went away.
  if (!window.__speclabLost && model.document) {
    window.__speclabLost = true;
    model.document.on_event("connection_lost", sayLost);
  }

  const motion = window.matchMedia("(prefers-reduced-motion: reduce)");
  model.reduced_motion = motion.matches;
  motion.addEventListener("change", (e) => { model.reduced_motion = e.matches; });

  if (!window.__speclabKeys) {
    window.__speclabKeys = true;
    document.addEventListener("keydown", (e) => {
      const t = e.composedPath()[0] || e.target;
      const tag = ((t && t.tagName) || "").toLowerCase();
      if (tag === "input" || tag === "textarea" || tag === "select" || (t && t.isContentEditable)) return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === "f" || e.key === "F") {
        if (document.fullscreenElement) { document.exitFullscreen(); }
        else if (document.documentElement.requestFullscreen) { document.documentElement.requestFullscreen(); }
      }
    });
  }
  const span = document.createElement("span");
  span.setAttribute("aria-hidden", "true");
  return span;
}
