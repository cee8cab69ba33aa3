"""Every value a browser sends for a widget, checked on the server before Panel applies it.

A page's own JavaScript can send any value for any widget (−10¹², 10³⁰, NaN, a string for a
number, 50 000 characters for a prompt). Panel would apply it, or fail with a traceback in the
lecturer's terminal and nothing on the page. `screen` runs on every change a browser sends
(Panel's `Syncable._process_events` wrapped once per process by `install`), for every widget of
every page, and decides per value:

- a number outside its widget's range is clamped to the nearest end and the page says so;
- what is not a usable number (NaN, ±inf, text, a fraction for a whole-number field) is refused:
  the widget keeps its value, the browser shows it again, and the page says why;
- text longer than its widget allows (its `max_length`, else MAX_TEXT) is cut to that length;
- a choice that is not one of the widget's options is refused;
- any other property (a slider's `start`/`end`/`step`, a text box's `max_length`, a menu's
  options or labels, `disabled`, …) is the server's to set, never the browser's: it is refused.

Each problem is one sentence for the student. It goes to the widget's own message spot when one was
given (`guard(widget, say)`), else to the page's (`on_problems(say)`, set once per page by the
shell), else to the log; it is in the page's language (the one uikit.language keeps on the page's
document: the interception sits below uikit, so it reads the document's template variable itself).

    guard(self.top_k, lambda sentence: show(sentence))      # optional: say it next to the widget
"""
from __future__ import annotations

import logging
import math
import numbers
import weakref

import panel as pn

from lab import i18n
from lab.i18n import N_
from intercept.pacing import served

log = logging.getLogger(__name__)

MAX_TEXT = 2000          # characters in any text box without its own max_length
NUMBER_PROPS = ("value", "value_throttled")
TEXT_PROPS = ("value", "value_input")
# What a browser may send for a widget: its value (as each kind of Bokeh widget carries it). Every
# other property of a widget (its limits, options, labels, disabled) is refused, said once.
BROWSER_PROPS = frozenset({"value", "value_throttled", "value_input", "active"})

LANGUAGE_KEY = "speclab_language"    # the document's template variable of its language (uikit.language.KEY)
_SAY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()        # widget → say(sentence)
_PAGE_SAY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # document → say(sentence)


def page_language(doc=None) -> str:
    """The language of page `doc` (default: the current one), English outside a page."""
    doc = doc if doc is not None else pn.state.curdoc
    return (doc.template_variables.get(LANGUAGE_KEY) if doc is not None else None) or i18n.DEFAULT


def _(message: str) -> str:
    """`message` in the current page's language."""
    return i18n.translate(page_language(), message)


def guard(widget, say) -> None:
    """Say `widget`'s refused or changed values with `say(sentence)` instead of the page's spot."""
    _SAY[widget] = say
    _forget_when_closed(pn.state.curdoc, _SAY, widget)


def on_problems(say, doc=None) -> None:
    """The page's spot for problems with widgets that have none of their own (this document)."""
    doc = doc or pn.state.curdoc
    if doc is not None:
        _PAGE_SAY[doc] = say
        _forget_when_closed(doc, _PAGE_SAY, doc)


def page_spot(doc):
    """The `say(sentence)` that `on_problems` registered for `doc`, or None (none yet, or its session
    has closed)."""
    return _PAGE_SAY.get(doc)


def _forget_when_closed(doc, table: weakref.WeakKeyDictionary, key) -> None:
    """Drop `table[key]` when `doc`'s session closes. A `say` is the page's own method, and the page
    holds the key (its widget, its document): weak keys alone would keep every closed page alive."""
    if served(doc):
        doc.on_session_destroyed(lambda context: table.pop(key, None))


class Refused(ValueError):
    """A browser's value that cannot be used at all; its message is the sentence for the page."""


def _label(widget) -> str:
    label = getattr(widget, "label", None)
    return _("“{label}”").format(label=label) if label else _("This field")


def _number(widget, value, whole: bool) -> tuple[object, str | None]:
    """(the value to apply, a sentence when it differs from what was sent); raises Refused."""
    label, sent = _label(widget), value
    if value is None and isinstance(widget, (pn.widgets.IntInput, pn.widgets.FloatInput)):
        return None, None                                  # an emptied number box: no answer yet
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise Refused(_("{field} takes a number; it keeps {value}.").format(field=label, value=_shown(widget.value)))
    if not math.isfinite(value):
        raise Refused(_("{field} takes a finite number; it keeps {value}.").format(field=label,
                                                                                   value=_shown(widget.value)))
    if whole:
        if value != int(value):
            raise Refused(_("{field} takes a whole number; it keeps {value}.").format(field=label,
                                                                                      value=_shown(widget.value)))
        value = int(value)
    start, end = getattr(widget, "start", None), getattr(widget, "end", None)
    if start is not None and value < start or end is not None and value > end:
        clamped = start if start is not None and value < start else end
        return clamped, _("{field} goes from {start} to {end}; {sent} is out of range, so it is set to "
                          "{clamped}.").format(field=label, start=_shown(start), end=_shown(end), sent=_shown(sent),
                                               clamped=_shown(clamped))
    return value, None


def _shown(x) -> str:
    if x is None:
        return _("nothing")
    if isinstance(x, numbers.Real) and not isinstance(x, bool) and abs(x) >= 1e6:
        return f"{float(x):.3g}"
    if isinstance(x, float) and x != round(x, 6):
        return f"{x:.3g}"
    return str(x)


def _text(widget, value) -> tuple[object, str | None]:
    if not isinstance(value, str):
        raise Refused(_("{field} takes text; it keeps what it had.").format(field=_label(widget)))
    limit = getattr(widget, "max_length", None) or MAX_TEXT
    if len(value) > limit:
        return value[:limit], _("{field} keeps at most {limit} characters; the rest of the {n} was cut.").format(
            field=_label(widget), limit=limit, n=len(value))
    return value, None


def _choice(widget, value) -> tuple[object, str | None]:
    """One of a Select's options as the browser names it: a list's items as text, and for dict
    options (label → value) a value as text or a label — Panel sends either, as its own
    `SingleSelectBase` maps them back."""
    labels = list(widget.labels) if hasattr(widget, "labels") else [str(o) for o in widget.options]
    values = list(widget.unicode_values) if hasattr(widget, "unicode_values") else labels
    if not isinstance(value, str) or value not in labels and value not in values:
        raise Refused(_("{field} offers only its listed choices; it keeps {value}.").format(
            field=_label(widget), value=_choice_shown(widget)))
    return value, None


def _choice_shown(widget) -> str:
    """The Select's current choice as its menu shows it (a dict option by its label)."""
    options = widget.options
    if isinstance(options, dict):
        label = next((label for label, v in options.items() if v == widget.value), widget.value)
        return repr(label)
    return repr(widget.value)


def _active(widget, value) -> tuple[object, str | None]:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(widget.options):
        raise Refused(_("{field} offers only its listed choices; it keeps {value}.").format(
            field=_label(widget), value=repr(widget.value)))
    return value, None


def _rules(widget) -> tuple[tuple[str, ...], object]:
    """Which Bokeh properties of `widget` carry a browser's value, and the rule for them."""
    W = pn.widgets
    if isinstance(widget, (W.IntSlider, W.IntInput)):
        return NUMBER_PROPS, lambda w, v: _number(w, v, whole=True)
    if isinstance(widget, (W.FloatSlider, W.FloatInput)):
        return NUMBER_PROPS, lambda w, v: _number(w, v, whole=False)
    if isinstance(widget, (W.TextInput, W.TextAreaInput)):
        return TEXT_PROPS, _text
    if isinstance(widget, W.Select):
        return ("value",), _choice
    if isinstance(widget, W.RadioButtonGroup):
        return ("active",), _active
    return (), None


def screen(widget, events: dict) -> list[str]:
    """Check a browser's `events` (Bokeh property → value) for `widget`, in place: clamped or cut
    values are replaced, refused ones removed. Says each problem once; returns the sentences."""
    props, rule = _rules(widget)
    sentences = []
    others = [prop for prop in events if prop not in BROWSER_PROPS]
    for prop in others:
        del events[prop]
    if others:
        sentences.append(_("{field} keeps its own settings; the page may change only its value, so the change "
                           "to {names} was refused.").format(field=_label(widget), names=", ".join(sorted(others))))
    for prop in props:
        if prop not in events:
            continue
        try:
            value, sentence = rule(widget, events[prop])
        except Refused as err:
            del events[prop]
            sentence = str(err)
        except Exception:             # a rule must never be the traceback it prevents
            log.exception("checking %r for %s failed", events[prop], type(widget).__name__)
            del events[prop]
            sentence = _("{field} could not take that value; it keeps its own.").format(field=_label(widget))
        else:
            events[prop] = value
        if sentence and sentence not in sentences:
            sentences.append(sentence)
    if sentences:
        _say(widget, " ".join(sentences))
        _show_again(widget, [prop for prop in others if prop in widget.param])
    return sentences


REFUSED_BY_BOKEH = N_("Your browser sent a value a control on this page cannot take, so it was ignored; "
                      "reload the page if a control shows something odd.")


def refused_by_bokeh(doc, err: ValueError) -> None:
    """Bokeh refused a browser's change before Panel saw it (intercept.inbox's wrapped handler):
    the page says so in one sentence; the log has one line from Bokeh's own handler."""
    say = page_spot(doc)
    if say is not None and doc.session_context is not None:
        said = i18n.translate(page_language(doc), REFUSED_BY_BOKEH)
        doc.add_next_tick_callback(lambda: say(said))


def install() -> None:
    """Call `screen(widget, events)` on every change a browser sends, before Panel applies it.
    Panel has no public hook for this: every browser change passes through
    `Syncable._process_events` (subclasses that override it call it), so it is wrapped once per
    process."""
    from panel.reactive import Syncable
    original = Syncable._process_events
    if getattr(original, "speclab", False):
        return

    def _process_events(self, events):
        if isinstance(self, pn.widgets.Widget) and events:
            screen(self, events)
            if not events:
                return
        original(self, events)
    _process_events.speclab, _process_events.original = True, original
    Syncable._process_events = _process_events


def _say(widget, sentence: str) -> None:
    doc = pn.state.curdoc
    say = _SAY.get(widget) or (page_spot(doc) if doc is not None else None)
    if say is None:
        log.info("a browser's value was changed or refused: %s", sentence)
        return
    say(sentence)


def _show_again(widget, also=()) -> None:
    """The browser still shows what it sent: send it the server's value (and the refused properties
    `also`) once this change is done."""
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return

    def resend():
        for name in ("value", *also) + (("value_input",) if hasattr(widget, "value_input") else ()):
            widget.param.trigger(name)
    doc.add_next_tick_callback(resend)
