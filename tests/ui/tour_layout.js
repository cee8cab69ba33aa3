// Measures the guided tour's current step as a projector shows it (tests/ui/test_tour_fits.py, test_tour_projector.py):
// every text box's type size and whether it is clipped, the step's content bounds, the Bokeh
// figures' type sizes, and whether the chapter menu shows each name whole.
() => {
  const vw = window.innerWidth, vh = window.innerHeight;
  const px = (v) => parseFloat(v);
  // every element below `root`, through shadow roots (Panel and Bokeh draw in shadow DOM)
  const below = (root, out = []) => {
    const kids = root.shadowRoot ? [...root.shadowRoot.children, ...root.children] : [...root.children];
    for (const el of kids) { out.push(el); below(el, out); }
    return out;
  };
  const parentOf = (el) => el.parentElement || (el.getRootNode() && el.getRootNode().host) || null;
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return null;
    const cs = getComputedStyle(el);
    if (cs.visibility === "hidden" || cs.display === "none" || cs.opacity === "0") return null;
    if (el.closest(".tour-sr, .bk-tooltip")) return null;
    // folded away: inside a closed <details> (its summary excepted), which Chromium still lays out
    for (let a = el, from = null; a; from = a, a = parentOf(a))
      if (a.tagName === "DETAILS" && !a.open && !(from && from.tagName === "SUMMARY")) return null;
    return r;
  };
  const ownText = (el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  const hostOf = (sel) => {
    for (const el of below(document.body)) if (el.classList && el.classList.contains(sel)) return el;
    return null;
  };
  const deck = hostOf("tour-deck"), stage = hostOf("tour-stage");
  const texts = [], clipped = [], boxes = [];
  const inFigure = (el) => {
    for (let a = el; a; a = parentOf(a)) {
      if (a.classList && (a.classList.contains("bk-Figure") || a.classList.contains("bk-Plot"))) return true;
    }
    return false;
  };
  const visit = (els, where) => {
    for (const el of els) {
      const tag = el.tagName.toLowerCase();
      if (tag === "style" || tag === "script" || tag === "option") continue;
      const r = shown(el);
      if (!r) continue;
      const cs = getComputedStyle(el);
      if (cs.position === "absolute" && (r.right < 0 || r.bottom < 0)) continue;   // for screen readers only
      const isText = ownText(el) || tag === "select" || tag === "input" || tag === "textarea";
      if (where === "stage" && (tag === "canvas" || tag === "button" || tag === "svg" || tag === "img" ||
                                tag === "select" || tag === "input" || tag === "textarea")) {
        boxes.push([r.left, r.top, r.right, r.bottom]);
      } else if (where === "stage" && isText) {       // the text itself, not its (often full-width) block
        const range = document.createRange();
        range.selectNodeContents(el);
        const t = range.getBoundingClientRect();
        if (t.width >= 1) boxes.push([t.left, t.top, t.right, t.bottom]);
      }
      // a card, box or table with a background or border is content as a whole
      if (where === "stage" && el !== stage && (cs.backgroundColor !== "rgba(0, 0, 0, 0)" ||
          (parseFloat(cs.borderLeftWidth) > 0 && parseFloat(cs.borderTopWidth) > 0)) && r.height < vh)
        boxes.push([r.left, r.top, r.right, r.bottom]);
      if (!isText) continue;
      const code = !!el.closest(".code, pre, code");
      const kind = code ? "code" : inFigure(el) ? "figure" : tag === "sup" || tag === "sub" ? "index" : "body";
      const label = (el.textContent || el.value || "").trim().slice(0, 50);
      texts.push({ where, kind, size: px(cs.fontSize), label, tag });
      // clipped: wider than its own box with overflow cut, off the screen, or outside an ancestor that clips
      if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 2 && tag !== "select" && tag !== "input")
        clipped.push({ label, why: `scrolls ${el.scrollWidth} > ${el.clientWidth}` });
      if (r.left < -1 || r.right > vw + 1 || r.top < -1 || r.bottom > vh + 1)
        clipped.push({ label, why: `off screen [${r.left | 0},${r.top | 0},${r.right | 0},${r.bottom | 0}]` });
      for (let a = parentOf(el); a && a !== document.body; a = parentOf(a)) {
        const acs = getComputedStyle(a);
        if (acs.overflowX === "visible" && acs.overflowY === "visible") continue;
        const ar = a.getBoundingClientRect();
        if (ar.width < 1) continue;
        if (r.left < ar.left - 2 || r.right > ar.right + 2 || r.top < ar.top - 2 || r.bottom > ar.bottom + 2) {
          clipped.push({ label, why: `cut by ${a.tagName.toLowerCase()}.${a.className}` });
          break;
        }
      }
    }
  };
  if (deck) visit(below(deck), "deck");
  if (stage) visit(below(stage), "stage");
  // the chapter menu: every name fits the select's box (measured in the select's own font)
  const menu = [];
  const select = deck && below(deck).find((el) => el.tagName === "SELECT");
  if (select) {
    const cs = getComputedStyle(select), ctx = document.createElement("canvas").getContext("2d");
    ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = select.clientWidth - px(cs.paddingLeft) - px(cs.paddingRight) - 20;   // 20: the arrow
    for (const o of select.options) {
      const w = ctx.measureText(o.textContent).width;
      if (w > room) menu.push(`${o.textContent} (${Math.round(w)} > ${Math.round(room)} px)`);
    }
  }
  // figure type: every text size of every Bokeh plot whose canvas is on screen
  const figures = [];
  const toPx = (v) => (typeof v === "object" && v !== null ? toPx(v.value) :
                       typeof v !== "string" ? null : v.endsWith("pt") ? px(v) * 4 / 3 :
                       v.endsWith("px") ? px(v) : v.endsWith("em") ? px(v) * 16 : null);
  const seen = new Set();
  const plotsOn = (v) => {
    if (!v || seen.has(v)) return;
    seen.add(v);
    if (v.model && /Plot|Figure/.test(v.model.type) && v.el && v.el.isConnected && shown(v.el)) {
      const m = v.model;
      const parts = [m.title, ...m.above, ...m.below, ...m.left, ...m.right, ...m.center,
                     ...m.renderers.map((r) => r.glyph)].filter((x) => x && typeof x === "object");
      for (const part of parts) {
        for (const name of Object.keys(part.properties || {})) {
          if (!name.endsWith("text_font_size")) continue;
          const value = toPx(part[name]);
          if (value !== null) figures.push({ plot: m.id, model: part.type, name, size: value });
        }
      }
    }
    if (typeof v.children === "function") for (const c of v.children()) plotsOn(c);
  };
  for (const v of Object.values(window.Bokeh ? Bokeh.index : {})) plotsOn(v);
  // overlapping: two of the stage's controls, canvases or text boxes drawn over each other
  const overlaps = [];
  // (a figure counts once: its canvases are layers of one picture; a field's own spin buttons sit on it)
  const figureOf = (el) => { for (let a = el; a; a = parentOf(a)) if (a.classList && a.classList.contains("bk-Figure")) return a; return el; };
  const solid = stage ? [...new Set(below(stage).filter((el) => ["button", "canvas", "select", "textarea"]
    .includes(el.tagName.toLowerCase()) && shown(el)).map((el) => el.tagName === "CANVAS" ? figureOf(el) : el))] : [];
  for (let i = 0; i < solid.length; i++) {
    for (let j = i + 1; j < solid.length; j++) {
      const a = solid[i].getBoundingClientRect(), b = solid[j].getBoundingClientRect();
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 3 && h > 3 && !solid[i].contains(solid[j]) && !solid[j].contains(solid[i]))
        overlaps.push(`${solid[i].tagName} "${solid[i].textContent.trim().slice(0, 30)}" × ${solid[j].tagName} "${solid[j].textContent.trim().slice(0, 30)}"`);
    }
  }
  let union = null;
  for (const [l, t, r, b] of boxes) {
    union = union ? [Math.min(union[0], l), Math.min(union[1], t), Math.max(union[2], r), Math.max(union[3], b)]
                  : [l, t, r, b];
  }
  const main = document.querySelector("#main");
  return { vw, vh, texts, clipped, menu, figures, union, overlaps,
           scroll: main ? [main.scrollHeight, main.clientHeight, main.scrollWidth, main.clientWidth] : null };
}
