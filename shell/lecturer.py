"""Lecturer-only controls: switch the pair for everyone, reset the class.

They exist only when the lecturer set a token at start-up (`SPECLAB_LECTURER_TOKEN=...` or
`panel serve app.py --args --lecturer-token ...`) and the page was opened with `?lecturer=TOKEN`.
Students never see them; a wrong token is refused in one sentence.
"""
from __future__ import annotations

import argparse
import hmac
import html
import logging
import os
import sys

import panel as pn

from lab import runtime
from lab.errors import public_message
from shell.sessions import CLASSROOM
from uikit.styles import BOX_CSS

log = logging.getLogger(__name__)


def configured_token(argv: list[str] | None = None, environ=None) -> str | None:
    """The lecturer token set at start-up, or None (then no lecturer controls exist)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--lecturer-token")
    args, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    token = args.lecturer_token or (os.environ if environ is None else environ).get("SPECLAB_LECTURER_TOKEN")
    return token or None


def token_ok(given, expected: str | None) -> bool:
    return bool(expected) and isinstance(given, str) and hmac.compare_digest(given.encode(), expected.encode())


class LecturerPanel(pn.viewable.Viewer):
    """Switch the pair for everyone and reset the class; built only for a verified lecturer."""

    def __init__(self, session_id: str, **params):
        super().__init__(**params)
        from lab.pair import PairError, listed, requested
        self.session_id = session_id
        try:                                      # the pair asked for is offered too (the tests serve tiny)
            asked = [requested().name]
        except PairError:
            asked = []
        names = listed() + [name for name in asked if name not in listed()]
        self.pair_select = pn.widgets.Select(label="Pair for everyone", options=names, width=260)
        self.switch_button = pn.widgets.Button(label="Switch pair for everyone", color="warning")
        self.reset_button = pn.widgets.Button(label="Reset the class", color="danger")
        self.status = pn.pane.HTML("", sizing_mode="stretch_width")
        self.switch_button.on_click(self._on_switch)
        self.reset_button.on_click(self._on_reset)

    def _say(self, sentence: str) -> None:
        self.status.object = f'<div role="status">{html.escape(sentence)}</div>'

    async def _on_switch(self, event=None):
        import asyncio
        name = self.pair_select.value
        self._say(f"Loading {name} for everyone…")
        self.switch_button.disabled = True
        try:
            pair = await asyncio.wrap_future(runtime.switch_pair(name))
            self._say(f"Everyone now uses {pair.target_label} / {pair.draft_label}; pages pick it up "
                      f"on their next action.")
        except Exception as err:   # PairError, or a model that does not fit: keep the working pair
            log.warning("pair switch to %r failed: %s", name, err)
            self._say(f"{public_message(err)} The class keeps the pair it had.")
        finally:
            self.switch_button.disabled = False

    def _on_reset(self, event=None):
        runtime.service().clear()
        n = CLASSROOM.reload_all(except_id=self.session_id)
        self._say(f"Reset: {n} student page(s) start again from the landing page.")

    def __panel__(self):
        return pn.Card(
            pn.pane.HTML(f"<p>{len(CLASSROOM)} open session(s) on this server.</p>"),
            self.pair_select, self.switch_button, self.reset_button, self.status,
            title="Lecturer controls", collapsed=False, width=320)


def lecturer_view(query_token, session_id: str):
    """What the page shows for `?lecturer=...`: the panel, a refusal, or nothing at all."""
    expected = configured_token()
    if query_token is None or expected is None:
        return None            # no token configured: the controls do not exist
    if not token_ok(query_token, expected):
        from uikit.styles import BOX_CSS
        return pn.pane.HTML('<div class="error" role="alert">That lecturer token is not right; '
                            'ask the lecturer for the link they started the server with.</div>',
                            stylesheets=[BOX_CSS], sizing_mode="stretch_width")
    return LecturerPanel(session_id)
