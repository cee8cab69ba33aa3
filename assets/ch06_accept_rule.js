// Chapter 6 redrawn in the browser while p(A) or q(A) moves: AcceptRuleFigures.draw_probabilities
// and the counts cleared (chapters/ch06_accept_rule/__init__.py: clear_share, draw_draws with no draw,
// frequency_table_html), over analytic.js's regions and thresholds. Python resets the counts the same
// way when the slider is let go. Nothing here is sent to the server ({sync: false}).
//
// args: region_src, pq_src, lines_src, share_src, freq_src, thr_src, u_src (sources), u_label,
// share_range, p_item, q_item, share_item (the share chart's legend items), tokens, share_axis,
// last_draw_text, share_note_text (the panes' texts with no draws); cb_data: p_a, q_a and the
// last_draw, freq_table and share_note panes' models.
const {p_a, q_a, last_draw, freq_table, share_note} = cb_data
const quiet = {sync: false}
const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  .replace(/"/g, "&quot;").replace(/'/g, "&#x27;")          // Python's html.escape, as Panel sends text
const p = [p_a, 1 - p_a], q = [q_a, 1 - q_a]
const r = analytic.regions(p, q)
const thr = analytic.thresholds(p_a, q_a)

// ---- draw_probabilities ----
region_src.setv({data: {token: tokens, agree: r.agree, eager: r.eager, shy: r.shy}}, quiet)
pq_src.setv({data: {token: tokens, p, q}}, quiet)
lines_src.setv({data: {p: [p_a], q: [q_a]}}, quiet)
p_item.setv({label: {value: `p(A) = ${analytic.fixed(p_a, 2)}: the target`}}, quiet)
q_item.setv({label: {value: `q(A) = ${analytic.fixed(q_a, 2)}: the draft alone`}}, quiet)

// ---- the counts cleared: clear_share, draw_draws with no draw; the browser's draws start again ----
delete share_src._speclab_draws        // assets/ch06_draws.js (the offline copy)
share_src.setv({data: {n: [], share: []}}, quiet)
share_range.setv({end: share_axis}, quiet)
share_item.setv({visible: false}, quiet)
freq_src.setv({data: {token: tokens, freq: [0, 0], rule: thr}}, quiet)
thr_src.setv({data: {left: [0], right: [0]}}, quiet)
u_src.setv({data: {u: [], y: [], color: []}}, quiet)
u_label.setv({text: ""}, quiet)

// ---- frequency_table_html with no draws ----
const rows = tokens.map((t, i) => {
  const kind = q[i] > p[i] ? "draft too eager" : (q[i] < p[i] ? "draft too shy" : "both agree")
  return `<tr><td><b>${t}</b></td><td>${analytic.fixed(p[i], 2)}</td><td>${analytic.fixed(q[i], 2)}</td><td>${kind}</td>` +
    `<td>0</td><td>0</td><td>—</td><td>${analytic.fixed(thr[i], 3)}</td></tr>`
}).join("")
const table = "<table class='speclab-table'><thead><tr><th>token</th><th>p</th><th>q</th><th>region</th>" +
  "<th>proposed</th><th>kept</th><th>kept ÷ proposed</th><th>min(1, p/q)</th></tr></thead>" +
  `<tbody>${rows}</tbody></table>`
const html = {table, last_draw: last_draw_text, share_note: share_note_text}
for (const [pane, text] of [[freq_table, table], [last_draw, last_draw_text], [share_note, share_note_text]])
  if (pane != null) pane.setv({text: escape(text)}, quiet)
return html
