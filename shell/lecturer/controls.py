"""Lecturer-only controls: switch the pair for everyone, reset the class.

They exist only when the lecturer set a token at start-up and the page was opened with
`?lecturer=TOKEN`. The token comes from a file or the environment, which `ps` does not show:
`SPECLAB_LECTURER_TOKEN_FILE=PATH` or `--args --lecturer-token-file PATH`, or
`SPECLAB_LECTURER_TOKEN=...` (`--args --lecturer-token ...` works too, but every user of the machine
sees it in `ps`). Students never see the controls; a wrong token is refused in one sentence (shell.room.attempts:
the token is compared first, so the right one always works whatever others guessed; each wrong try
makes that browser and its client address wait longer before its next one is checked, and the whole
server counts at most GUESSES_PER_HOUR wrong tokens an hour); the lecturer's view says in one line
when someone is guessing.
"""
from __future__ import annotations

import argparse
import html
import logging
import os
import sys
from pathlib import Path

import panel as pn

from lab.errors import public_message
from shell.lecturer.classwide import reset_class, switched_everywhere
from shell.room.attempts import GUESS_BURST, GUESSES_PER_HOUR, Attempts, guessing_line, judge, token_ok  # noqa: F401
from shell.room.identity import client_address
from shell.lecturer.drafting import DraftingLine
from shell.poll.answers import DocumentWatch
from shell.poll.view import PollView
from intercept.clicks import on_click
from uikit.actions import action
from intercept.pacing import served
from uikit.language import gettext as _, ngettext, number, say
from uikit.styles import BOX_CSS
from uikit.tokens import plural

log = logging.getLogger(__name__)


def configured_token(argv: list[str] | None = None, environ=None) -> str | None:
    """The lecturer token set at start-up, or None (then no lecturer controls exist).

    First found wins: --lecturer-token, --lecturer-token-file, SPECLAB_LECTURER_TOKEN,
    SPECLAB_LECTURER_TOKEN_FILE. A token file that cannot be read leaves the controls off (logged).
    """
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--lecturer-token")
    parser.add_argument("--lecturer-token-file")
    args, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    env = os.environ if environ is None else environ
    if args.lecturer_token:
        return args.lecturer_token
    if args.lecturer_token_file:
        return _token_from_file(args.lecturer_token_file)
    if env.get("SPECLAB_LECTURER_TOKEN"):
        return env["SPECLAB_LECTURER_TOKEN"]
    path = env.get("SPECLAB_LECTURER_TOKEN_FILE")
    return _token_from_file(path) if path else None


def _token_from_file(path: str) -> str | None:
    try:
        token = Path(path).expanduser().read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as err:
        log.error("The lecturer token file %s could not be read (%s); lecturer controls are off until "
                  "it can.", path, err)
        return None
    if not token:
        log.error("The lecturer token file %s is empty; lecturer controls are off.", path)
    return token or None


class LecturerPanel(pn.viewable.Viewer):
    """Switch the pair for everyone and reset the class; built only for a verified lecturer."""

    def __init__(self, the_class, session_id: str, chapter: int | None = None, **params):
        """`the_class`: the server's class state (shell.frame.classstate); `chapter`: the number of the
        chapter this page shows (its question leads the class poll)."""
        super().__init__(**params)
        from lab.pairs.load import PairError, listed
        self.the_class = the_class
        self.session_id = session_id
        self.chapter = chapter
        try:                                      # the pair asked for is offered too (the tests serve tiny)
            asked = [the_class.pair.requested().name]
        except PairError:
            asked = []
        names = listed() + [name for name in asked if name not in listed()]
        # plain labels (the browser's value is checked against them, intercept.validate), mapped to names
        self.pair_names = pair_options(names)
        self.drafting = DraftingLine(the_class)   # the default drafting on this pair, as chapter 12 words it
        in_use = the_class.pair.loaded().name if the_class.pair.loaded() is not None else (asked or [None])[0]
        self.pair_select = pn.widgets.Select(label=_("Pair for everyone"), options=list(self.pair_names), width=260,
                                             **{"value": k for k, v in self.pair_names.items() if v == in_use})
        self.switch_button = action(_("Switch pair for everyone"), "switch-pair", color="warning")
        self.status = pn.pane.HTML("", sizing_mode="stretch_width")
        on_click(self.switch_button, self.switch, say=self._say)
        self._build_reset()
        self.sessions = pn.pane.HTML(self._sessions_html(), sizing_mode="stretch_width", margin=(0, 10))
        self._room = DocumentWatch(the_class.open_pages,
                                   lambda changed: setattr(self.sessions, "object", self._sessions_html()))
        # someone guessing the token: one line, looked at every few seconds (every process's tries)
        self.guessing = pn.pane.HTML(guessing_line(the_class.attempts), sizing_mode="stretch_width",
                                     margin=(0, 10), stylesheets=[LECTURER_CSS])
        if served():
            pn.state.add_periodic_callback(self._look_for_guessing, period=GUESS_LOOK_MS)
            the_class.ballots.lecturers_page()     # this page watches the poll; it is not one of the class
            pn.state.on_session_destroyed(lambda ctx: self._room.stop())

    def _look_for_guessing(self) -> None:
        line = guessing_line(self.the_class.attempts)
        if line != self.guessing.object:
            self.guessing.object = line

    # --- the open sessions, live ---
    def _sessions_html(self) -> str:
        n = self.the_class.open_pages.total()
        said = ngettext("{n} open session on this server (this page included).",
                        "{n} open sessions on this server (this page included).", n).format(n=number(n))
        return f'<p class="sessions" role="status">{html.escape(said)}</p>'

    # --- reset the class: two steps, set apart from the pair switch ---
    def _build_reset(self) -> None:
        self.reset_button = action(_("Reset the class…"), "reset-class", color="danger", variant="outline",
                                   description=_("Asks first: every student's page starts again"))
        warning = _("This sends every student's page back to the landing page and clears their work on this "
                    "server. Sure?")
        self.reset_warning = pn.pane.HTML(
            f'<div class="error" role="alert">{html.escape(warning)}</div>', stylesheets=[BOX_CSS],
            sizing_mode="stretch_width", visible=False, margin=(4, 10))
        self.confirm_reset = action(_("Yes, clear every student's work"), "confirm-reset", color="danger",
                                    visible=False)
        self.cancel_reset = action(_("Cancel"), "cancel-reset", color="light", visible=False)
        on_click(self.reset_button, lambda e: self._ask_reset(True), say=self._say)
        on_click(self.cancel_reset, lambda e: self._ask_reset(False), say=self._say)
        on_click(self.confirm_reset, self._on_reset, say=self._say)

    def _ask_reset(self, asking: bool) -> None:
        for widget in (self.reset_warning, self.confirm_reset, self.cancel_reset):
            widget.visible = asking
        self.reset_button.visible = not asking

    def _say(self, sentence: str) -> None:
        """One sentence under the controls, in the page's language (a dropped press's, intercept.clicks,
        comes in English: translated here; one made here is already)."""
        said = html.escape(_(sentence)) if sentence else ""
        self.status.object = f'<div role="status">{said}</div>'

    async def switch(self, event=None):
        """Switch every page to the selected pair (the switch button), or say in one sentence why not."""
        import asyncio
        name = self.pair_names.get(self.pair_select.value, self.pair_select.value)
        if needs_download(name):   # refused at once: offline, loading it would only retry the hub
            self._say(_("{name} is not downloaded on this server, so the class keeps the pair it had; run "
                        "python -m lab prepare --pair {name} where the hub is reachable, then switch.").format(name=name))
            return
        self._say(_("Loading {name} for everyone…").format(name=name))
        self.switch_button.disabled = True
        try:
            pair = await asyncio.wrap_future(self.the_class.pair.switch(name))
            log.info("lecturer switched the pair to %s", name)
            switched_everywhere(self.the_class, name)
            self.the_class.badges.pair_switched()     # every open page's badge names the new pair now
            self._say(_("Everyone now uses {target} / {draft}; pages pick it up on their next action.").format(
                target=pair.target_label, draft=pair.draft_label))
        except Exception as err:   # PairError, or a model that does not fit: keep the working pair
            log.warning("pair switch to %r failed: %s", name, err)
            self._say(_("{why} The class keeps the pair it had.").format(why=say(public_message(err))))
        finally:
            self.switch_button.disabled = False

    def _on_reset(self, event=None):
        """The confirmed reset: clear the model cache and send every other page to the landing page."""
        self._ask_reset(False)
        n = reset_class(self.the_class, except_id=self.session_id)
        log.info("lecturer reset the class (%d %s reloaded)", n, plural(n, "page"))
        self._say(ngettext("Reset: {n} student page starts again from the landing page.",
                           "Reset: {n} student pages start again from the landing page.", n).format(n=number(n)))

    def __panel__(self):
        pair = pn.Column(self.pair_select, self.switch_button, margin=0)
        whole = html.escape(_("The whole class"))
        reset = pn.Column(pn.pane.HTML(f'<p class="danger-zone">{whole}</p>', stylesheets=[LECTURER_CSS],
                                       margin=(0, 10)),
                          self.reset_button, self.reset_warning, pn.Row(self.confirm_reset, self.cancel_reset, margin=0),
                          margin=0, css_classes=["reset-class"])
        # a plain <hr>: Panel's Divider built after the page was served (shell.frame.app) names the CDN
        rule = pn.pane.HTML("<hr>", margin=(14, 10), sizing_mode="stretch_width")
        return pn.Column(pn.Card(
            self.sessions, self.guessing, self.drafting, pair, rule, reset, self.status,
            title=_("Lecturer controls"), collapsed=False, width=360, css_classes=["lecturer-controls"]),
            PollView(self.the_class.poll, current=self.chapter, ballot=self.the_class.ballots.page_ballot()),
            sizing_mode="stretch_width", margin=0)   # the class poll (shell/poll/answers.py)


def needs_download(name: str) -> bool:
    """Whether the named pair has hub models that are not in this machine's Hugging Face cache."""
    from lab.pairs import hub
    from lab.pairs.load import registry
    spec = registry().get(name)
    return spec is not None and bool(hub.missing(spec))


def pair_options(names: list[str]) -> dict[str, str]:
    """The pair menu: label → name, the pairs this server cannot load offline marked "needs download"
    (in the page's language: a page's labels are its own)."""
    return {_("{name} (needs download)").format(name=name) if needs_download(name) else name: name
            for name in names}


LECTURER_CSS = """
.danger-zone { font-weight: 600; color: #8a1c14; margin: 0; }
.guessing { font-weight: 600; color: #8a1c14; margin: 4px 0; }
"""
GUESS_LOOK_MS = 5000       # how often the lecturer's view looks for someone guessing the token


def lecturer_view(the_class, query_token, session_id: str, browser: str | None = None,
                  address: str | None = None):
    """What the page shows for `?lecturer=...`: the panel, a refusal, or nothing at all. Tries are
    counted per browser, per client `address` (default: this served page's) and on the server (the
    class state's `attempts`)."""
    if query_token is None:
        return None            # students: nothing at all
    expected = configured_token()
    if expected is None:
        return None            # no token configured: the controls do not exist
    browser = browser or session_id
    if address is None:
        address = client_address(pn.state.curdoc) if served() else ""
    keys = (browser, f"address {the_class.signer.hashed(address)}" if address else "")
    refused = judge(the_class.attempts, query_token, expected, keys, address)
    if refused is not None:
        return _refusal(refused)
    log.info("lecturer controls opened (browser %s…)", browser[:8])
    return LecturerPanel(the_class, session_id, chapter=_page_chapter())


def _page_chapter() -> int | None:
    """The number of the chapter this served page shows (`?chapter=SLUG`), None elsewhere."""
    from chapters import registry
    values = (pn.state.session_args or {}).get("chapter") or []
    slug = values[0].decode("utf-8", "replace") if values else ""
    page = registry.page_by_slug(slug) if slug else None
    return page.number if page is not None else None


def _refusal(sentence: str) -> pn.pane.HTML:
    return pn.pane.HTML(f'<div class="error" role="alert">{html.escape(sentence)}</div>',
                        stylesheets=[BOX_CSS], sizing_mode="stretch_width")
