"""The guided tour: one short text per step, each about the live components of one chapter.

Data only (the landing page counts it; shell/tour/view.py draws it). Each step:

    {"chapter": 6,                      # 0 = the opening step (the question and the three parts)
     "text": N_("One or two short sentences, read from the back of the room."),
     "show": [...]}                     # what of that chapter's *live* object to put under the text
     "prefetch": "measure"}             # optional: the chapter's coroutine that computes what the step
                                        # shows, started two steps ahead so a measurement is ready

`show` is a column of items, top to bottom. An item is
    "name"                  an attribute of the chapter object (a widget, pane, Viewer or Bokeh figure),
                            or one of: "predict" (its Pause & predict card), "takeaway" (its takeaway
                            box), "body" (the whole interactive part), "overview" (step 0: the parts)
    ["a", "b", ...]         a row of items; a list inside a row is a column again
    {"lane": N_("Big model"), "strip": "big_strip", "count": "big_count"}
                            a labelled lane (uikit.tokens.lane) around the chapter's strip
    {"legend": ["easy", "hard"]}
                            the shared legend for those token states (uikit.tokens.legend)
    {"item": "code", "width": 740}
                            an item of that fixed width (px at 1280×720; the screen's scale applies)
    {"button": N_("Its label")} the chapter's button with exactly that label (left out, with a log line,
                            while the chapter has none)
    {"item": "summary", "class": "tour-beside"}
                            an item with a CSS class for the stage's sheet (assets/tour-stage.css:
                            "tour-beside" puts a pane's table beside its sentences)
    {"legend": [...], "labels": {"kept": N_("draft call: guess kept")}}
                            a legend with the chapter page's own labels
A name the chapter does not have falls back to its whole body, with a note (see tour.py).

Optional keys of a step besides `show` and `prefetch`:
    "action": N_("✎ Write")     the button a lecturer presses on this step before turning to the room
    "presses": 3                how many times (default once); the browser walk presses it too
    "select": {"strip": "strip", "prefer": "hard"}
                                as the step appears, the strip's first chip in state `prefer` (else
                                its first) is selected where none is, so its detail shows

Every word a step shows is an English message marked `N_` (its text, lanes, legend labels, its
button and action labels: the chapters' own), translated where the step is drawn, in the page's
language (shell/tour/view.py, items.py): `step_text(n)`, `label(message)`. A step's "text" stays
the English sentence (tests and the export read it). Counts in a step's sentence are computed from
what its chapter shows (the rows of chapter 12's table, the lines of chapter 9's code), so the words
never disagree with the figure under them: such a step is `counted(N_("{Ways} ways …"), ways=6)`,
its message and counts beside its English "text".
"""
from __future__ import annotations

from chapters.ch03_checking import MAX_POSITIONS, N_WORDS
from chapters.ch09_code import CODE
from lab import i18n
from lab.experiments.cheaper import DRAFTINGS
from lab.experiments.textkinds import KINDS
from lab.i18n import N_
from lab.i18n.pseudo import accented
from uikit.language import page_language
from uikit.tokens import in_words


def counted(message: str, digits: dict | None = None, **counts: int) -> dict:
    """A step's sentence that says counts: its message (`N_`-marked, with a placeholder per count) and
    the counts, and "text", the sentence in English (what tests and the export read as a step's text).

    A count in `counts` is spelled out in English ("{ways}": "six"; "{Ways}", at the head of a
    sentence: "Six") and written in digits in other languages (their spelled numbers are not the
    English words); a count in `digits` is in digits in every language ("1, 2, … {last}").

        counted(N_("{Ways} ways to guess, one prompt: …"), ways=6)["text"]     # 'Six ways to guess, …'
    """
    step = {"message": message, "counts": counts, "digits": digits or {}}
    return {**step, "text": fill(step, i18n.DEFAULT, message)}


def fill(step: dict, language: str, message: str) -> str:
    """`message` (a step's, in `language`) with the step's counts as `language` writes them."""
    values = {}
    for name, n in step.get("counts", {}).items():
        said = (in_words(n) if language == i18n.DEFAULT else accented(in_words(n)) if language == i18n.PSEUDO
                else i18n.number(language, n))
        values.update({name: said, name.capitalize(): said[:1].upper() + said[1:]})
    values.update({name: i18n.number(language, n) for name, n in step.get("digits", {}).items()})
    return message.format(**values) if values else message


def step_text(step: int | dict, language: str | None = None) -> str:
    """The sentence of step `step` (its 1-based number, or its entry of TOUR) in `language`, default
    the page's (uikit.language: the document being built or clicked; English outside a page).

        step_text(3)                  # 'Press Write: both models write 20 tokens …' (outside a page)
        step_text(3, "es")            # 'Pulsa Escribir: …'
    """
    spec = TOUR[step - 1] if isinstance(step, int) else step
    language = language or page_language()
    return fill(spec, language, i18n.translate(language, spec.get("message", spec["text"])))


def label(message: str, language: str | None = None) -> str:
    """A step's lane, legend or action label (an English message) in `language`, default the page's."""
    return i18n.translate(language or page_language(), message)


TOUR = [
    # --- the question ---
    {"chapter": 0, "show": ["overview"],
     "text": N_("Can a small model make a big one faster — and give exactly the same output?")},
    # --- Part I · 1 the dilemma ---
    {"chapter": 1, "show": ["predict"],
     "text": N_("A big model writes one word per expensive call. Pause & predict: why not all 20 words in one call?")},
    {"chapter": 1, "show": [["write_button", "speed", "busy"],
                            {"lane": N_("Big model"), "strip": "big_strip"},
                            {"lane": N_("Small model"), "strip": "small_strip"},
                            "figure"],
     "action": N_("✎ Write"),
     "text": N_("Press Write: both models write 20 tokens of the same prompt, each at its real, measured speed.")},
    {"chapter": 1, "show": [{"legend": ["draft", "unlikely"]}, "summary", "takeaway"],
     "text": N_("The small one is quick but sloppy (⚠). We want the big model's words at the small model's speed.")},
    # --- 2 most words are easy ---
    {"chapter": 2, "show": ["predict"],
     "text": N_("At every position of the big model's text, ask the small model for its first guess.")},
    {"chapter": 2, "show": [["ask_button", "busy"], "strip", {"legend": ["easy", "hard"]}, "count"],
     "action": N_("Ask the small model"),
     "text": N_("✓ easy: the small model guesses the same word. ✗ hard: it says something else.")},
    {"chapter": 2, "show": ["strip", "detail", "takeaway"], "select": {"strip": "strip", "prefer": "hard"},
     "text": N_("Click a word to compare the two models' top candidates there.")},
    # --- 3 checking is faster than writing ---
    {"chapter": 3, "show": ["predict"],
     **counted(N_("{Words} guessed words are already on the page. How many big-model calls to check them?"),
               words=N_WORDS)},
    {"chapter": 3, "show": [["tick_button", "reset_button", "busy"],
                            {"lane": N_("Writing"), "strip": "write_strip", "count": "write_calls"},
                            {"lane": N_("Checking"), "strip": "check_strip", "count": "check_calls"}],
     "action": N_("Tick the clock"), "presses": 3,
     **counted(N_("Tick the clock: writing waits word by word; the {words} guessed words are already there. "
                  "Count each lane's calls."), words=N_WORDS)},
    {"chapter": 3, "show": [["measure_button", "measure_busy", "measure_progress"], "figure", "reading"],
     "prefetch": "measure",
     **counted(N_("Is that true on this machine? Time the target reading 1, 2, … {last} positions at once."),
               digits={"last": MAX_POSITIONS})},
    # --- Part II · 4 guess, check, keep ---
    {"chapter": 4, "show": ["predict"],
     "text": N_("Two names: the target is the big model whose text we want; the draft is the small one.")},
    {"chapter": 4, "show": [["next_button", "reset_button", "busy"], "text_strip", "last_round"],
     "action": N_("▶ Next round"), "presses": 2,
     "text": N_("Next round: the draft guesses a few tokens, the target checks them all in one call, we keep what passes.")},
    {"chapter": 4, "show": [{"lane": N_("Standard decode"), "strip": "standard_strip", "count": "standard_count"},
                            {"lane": N_("Draft + verify"), "strip": "spec_strip", "count": "spec_count"},
                            {"legend": ["target_call", "kept", "rejected", "dropped", "fixed", "bonus"],
                             "labels": {"target_call": N_("one target call"), "kept": N_("draft call: guess kept"),
                                        "rejected": N_("draft call: guess rejected"),
                                        "dropped": N_("draft call: dropped after a rejection"),
                                        "fixed": N_("the target's fix"), "bonus": N_("the target's bonus token")}}],
     "text": N_("Count target calls: standard decoding calls it once per token, draft + verify once per round.")},
    {"chapter": 4, "show": ["next_button", "text_strip", "takeaway"],
     "text": N_("Look at each token of the text: who proposed it, and who let it in?")},
    # --- Part III · 5 one pass ---
    {"chapter": 5, "show": ["predict"],
     "text": N_("Five questions follow. First: what exactly does one target pass give us?")},
    {"chapter": 5, "show": [["next_button", "busy"], "round_note", "strip"], "action": N_("Next round"),
     "text": N_("γ cheap draft calls, each token sampled from q; then one target pass returns p at every position, plus one more.")},
    {"chapter": 5, "show": ["strip", ["bar_fig", "assumed"]],
     "text": N_("Click a position: q and p side by side, and the guesses the check there took as given.")},
    # --- 6 the accept rule ---
    {"chapter": 6, "show": ["predict"],
     "text": N_("One position, two tokens A and B: the draft proposes with q, the target would pick with p.")},
    {"chapter": 6, "show": [[["p_slider", "q_slider"], "region_fig"]],
     "text": N_("Drag p(A) and q(A): where both agree, where the draft is too eager, where it is too shy.")},
    {"chapter": 6, "show": [["draw_button", "draw_many_button", "reset_button"], ["u_fig", "last_draw"]],
     "action": N_("Draw"),
     "text": N_("Draw: sample a token from q, draw u uniformly, and see which draws the rule keeps.")},
    {"chapter": 6, "show": [["draw_many_button", "reset_button"], ["freq_fig", "freq_table"]],
     "action": N_("Draw 1000"),
     "text": N_("Draw 1000: where do the kept frequencies settle, against p and q?")},
    # --- 7 the correction ---
    {"chapter": 7, "show": ["predict"],
     "text": N_("After a rejection we still owe a token. Which distribution should it come from?")},
    {"chapter": 7, "show": [["context", "show_button", "busy"], "regions_fig"], "action": N_("Show p and q"),
     "text": N_("A live context: the overlap min(p, q), the draft too eager, and the residual (p − q)+ where it was too shy.")},
    {"chapter": 7, "show": [["rule_buttons", "size_select", "run_button"], "out_fig"],
     "action": N_("Run accept + correct"),
     "text": N_("Switch the correction rule, run accept + correct many times, and compare what comes out with p.")},
    {"chapter": 7, "show": ["distance", "rule_table"],
     "text": N_("Which correction rule's output matches the target p? Read each rule's distance from p.")},
    # --- 8 a full round ---
    {"chapter": 8, "show": ["predict"],
     "text": N_("A full round with real numbers: p, q, p / q and the uniform draw for each draft token.")},
    {"chapter": 8, "show": [["step_button", "next_button", "restart_button", "busy"], "round_note",
                            "drafts_strip", "table"], "action": N_("Step"),
     "text": N_("Step through it: each draft token is kept or rejected, left to right.")},
    {"chapter": 8, "show": [[{"button": N_("Show a round where every draft is kept")}, "step_button", "busy"],
                            "explain", "table", "text_strip"], "action": N_("Show a round where every draft is kept"),
     "text": N_("Keep the prefix, correct once, drop the rest. Press “Show a round where every draft is kept” "
             "and count the tokens that round adds.")},
    # --- 9 the round in code ---
    {"chapter": 9, "show": [["step_button", "run_button", "next_button", "busy"],
                            [{"item": "code", "width": 740}, "variables"]],
     "action": N_("Step"),
     **counted(N_("{Lines} lines: Step lights the line that runs, its variables beside it."), lines=len(CODE))},
    {"chapter": 9, "show": ["predict"],
     "text": N_("Set the temperature to 0. What does the accept test turn into?")},
    {"chapter": 9, "show": [["temperature_slider", "step_button", "busy"],
                            [{"item": "code", "width": 740}, "variables"]],
     "text": N_("Slide the temperature to 0 and step: what does the accept test compare now?")},
    # --- 10 when does drafting save time? ---
    {"chapter": 10, "show": ["predict", "try_question"],
     "text": N_("Tokens per round, divided by cost per round. Is drafting always faster?")},
    {"chapter": 10, "show": [[["alpha_slider", "gamma_slider", "c_slider"], "readout"],
                             "speed_fig"],
     "text": N_("Drag α, γ and c: where is the break-even?")},
    {"chapter": 10, "show": [["use_models", "busy", "time_left"], "live", "gamma_fig"], "prefetch": "measure_live",
     "action": N_("Use my models"),
     "text": N_("The bars: the formula at the sliders' α and c. Use my models moves them to the live pair's "
             "measured α and c, its measured speed-up beside.")},
    # --- 11 putting it together ---
    {"chapter": 11, "show": [["draw_button", "busy"], "warning", "lane_fig"], "action": N_("Read the timeline"),
     "text": N_("Same distribution, a different schedule: standard decoding ticks evenly, drafting delivers bursts.")},
    {"chapter": 11, "show": [{"item": "summary", "class": "tour-beside"}],
     "text": N_("The same tokens from at most as many target calls. The same prefill: the first token comes no sooner.")},
    {"chapter": 11, "show": ["cards", "takeaway"],
     "text": N_("What stays the same, what gets faster, and what it costs.")},
    # --- Part IV · 12 cheaper guesses ---
    {"chapter": 12, "show": ["predict"],
     "text": N_("Beyond the lecture: a guess need not come from a model. It can be copied from the text itself.")},
    {"chapter": 12, "show": [["run_button", "busy"], "table"], "prefetch": "measure",
     **counted(N_("{Ways} ways to guess, one prompt: the same text every time, only the target calls differ."),
               ways=len(DRAFTINGS))},
    # --- 13 how predictable is your text? ---
    {"chapter": 13, "show": [["run_button", "progress", "busy"], "predict"], "prefetch": "measure",
     **counted(N_("α is not the draft's alone: it depends on what is written. {Kinds} kinds of text, "
                  "measured live."), kinds=len(KINDS))},
    {"chapter": 13, "show": [["run_button", "busy"], "kinds_fig", "verdict", "closing"], "prefetch": "measure",
     "text": N_("The bars against this machine's break-even: where the draft model's guesses pay, and where they cost.")},
]


def first_step(chapter: int) -> int:
    """The 1-based number of the tour's first step about `chapter` (1 when the tour skips it).

    For a "▶ Tour from here" link on a chapter page: f"?tour={first_step(page.number)}".
    """
    return next((i + 1 for i, s in enumerate(TOUR) if s["chapter"] == chapter), 1)


def clamp_step(step) -> int:
    """A step number from a URL (any text) as a valid 1-based step."""
    try:
        n = int(str(step).strip())
    except (TypeError, ValueError):
        return 1
    return min(max(n, 1), len(TOUR))
