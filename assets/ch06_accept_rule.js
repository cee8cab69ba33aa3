// Chapter 6 redrawn in the browser while p(A) or q(A) moves: AcceptRuleFigures.draw_probabilities
// and the counts cleared (chapters/ch06_accept_rule/__init__.py: clear_share, draw_draws with no draw,
// frequency_table_html), over analytic.js's regions and thresholds. Python resets the counts the same
// way when the slider is let go. Nothing here is sent to the server ({sync: false}).
//
// args: region_src, pq_src, lines_src, share_src, freq_src, thr_src, u_src (sources), u_label,
// share_range, p_item, q_item, share_item (the share chart's legend items), tokens, share_axis,
// last_draw_text, share_note_text (the panes' texts with no draws), words (the page's words in its
// language: chapters/ch06_accept_rule/__init__.py browser_words); cb_data: p_a, q_a and the
// last_draw, freq_table and share_note panes' models.
const {p_a, q_a, last_draw, freq_table, share_note} = cb_data
const quiet = {sync: false}
const num = (x, d) => analytic.number(x, d, words.language.format)     // uikit.language's number
const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  .replace(/"/g, "&quot;").replace(/'/g, "&#x27;")          // Python's html.escape, as Panel sends text
const p = [p_a, 1 - p_a], q = [q_a, 1 - q_a]
const r = analytic.regions(p, q)
const thr = analytic.thresholds(p_a, q_a)

// ---- draw_probabilities ----
region_src.setv({data: {token: tokens, agree: r.agree, eager: r.eager, shy: r.shy}}, quiet)
pq_src.setv({data: {token: tokens, p, q}}, quiet)
lines_src.setv({data: {p: [p_a], q: [q_a]}}, quiet)
p_item.setv({label: {value: analytic.fill(words.p_label, {p: num(p_a, 2)})}}, quiet)
q_item.setv({label: {value: analytic.fill(words.q_label, {q: num(q_a, 2)})}}, quiet)

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
  const kind = words.regions[q[i] > p[i] ? "eager" : (q[i] < p[i] ? "shy" : "agree")]
  return `<tr><td><b>${t}</b></td><td>${num(p[i], 2)}</td><td>${num(q[i], 2)}</td><td>${kind}</td>` +
    `<td>0</td><td>0</td><td>—</td><td>${num(thr[i], 3)}</td></tr>`
}).join("")
const table = `${words.table_head}<tbody>${rows}</tbody></table>`
const html = {table, last_draw: last_draw_text, share_note: share_note_text}
for (const [pane, text] of [[freq_table, table], [last_draw, last_draw_text], [share_note, share_note_text]])
  if (pane != null) pane.setv({text: escape(text)}, quiet)
return html
