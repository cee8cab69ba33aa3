"""One student's state: their prompt, sampling settings, draft variant, drafter and answers. Never
shared between sessions."""
from __future__ import annotations

import param

from lab.core.drafting import DRAFTERS
from lab.prompts import DEFAULT_PROMPT, PromptError, encode_prompt
from lab.core.request import REQUEST_TOKENS, Request
from lab.core.sampling import SamplingSettings
from lab.pairs.variants import DEFAULT as DEFAULT_VARIANT, VARIANTS

SAMPLING = ("temperature", "top_k", "top_p")          # what the sampling settings are made of
SETTINGS = ("prompt", *SAMPLING, "gamma", "seed", "variant", "drafter")  # what a chapter's results depend on
GAMMA_MAX = 12                                          # the γ sliders' range is 1..GAMMA_MAX


class LabState(param.Parameterized):
    """Built once per browser session and handed to every chapter of that session."""

    prompt = param.String(default=DEFAULT_PROMPT, doc="The text both models continue.")
    temperature = param.Number(default=0.0, bounds=(0.0, 2.0), step=0.1, doc="0 means greedy.")
    top_k = param.Integer(default=0, bounds=(0, 200), doc="0 switches top-k off.")
    top_p = param.Number(default=1.0, bounds=(0.05, 1.0), step=0.05, doc="1 switches top-p off.")
    gamma = param.Integer(default=4, bounds=(1, GAMMA_MAX), doc="γ, the draft length.")
    seed = param.Integer(default=0, bounds=(0, 2**31 - 1), doc="Seed of the round's random draws.")
    variant = param.Selector(default=DEFAULT_VARIANT, objects=list(VARIANTS),
                             doc="The draft variant: the pair's own draft model (aligned), or a teaching draft, weak "
                                 "or random (lab.pairs.variants); chapters with the preset bar use it.")
    drafter = param.Selector(default="model", objects=list(DRAFTERS),
                             doc="Who guesses on the live pages: the draft model (the lecture's method), prompt "
                                 "lookup (copy from the text) or both (lab.core.drafting); the preset bar switches it.")
    answers = param.Dict(default={}, doc="Predict-and-check answers, by chapter number.")
    error = param.String(default="", doc="The last one-sentence problem with the student's input.")
    page_sampling = param.Dict(default={}, doc="What a page samples with when it is not the session's settings "
                               "(chapters 5, 8 and 9 sample a greedy session's rounds), by chapter number, as "
                               "SamplingSettings.describe() says it; the badge shows the one on screen. Not a setting.")
    on_screen = param.Integer(default=None, allow_None=True, doc="The chapter on screen when one page shows "
                              "several (the tour's step); None on a chapter's own page.")
    reduced_motion = param.Boolean(default=False, doc="The browser asks for reduced motion: replays "
                                   "show their last frame at once.")

    def __init__(self, service, owner: str | None = None, ballots=None, **params):
        """`service`: the server's ModelService (shared; holds the pair); `owner`: the browser
        session's id, under which its model work is queued fairly; `ballots()`: the page's way into
        the class poll (shell.poll.answers.Ballot, or None), given by the shell for a served page."""
        super().__init__(**params)
        self.service = service
        self.owner = owner
        self._ballots = ballots

    def ballot(self):
        """This page's ballot in the class poll (what a predict card votes with), or None: no poll
        (a page built outside a server, a test)."""
        return self._ballots() if self._ballots is not None else None

    @property
    def settings(self) -> SamplingSettings:
        return SamplingSettings(self.temperature, self.top_k, self.top_p)

    def shown_sampling(self) -> str:
        """What the chapter on screen samples with, when not the session's settings ("" otherwise)."""
        if self.on_screen is not None:
            return self.page_sampling.get(self.on_screen, "")
        return next(iter(self.page_sampling.values())) if len(self.page_sampling) == 1 else ""

    def request(self, prompt_ids: list[int], variant: str = "aligned", drafter: str | None = None,
                policy: str = "constant", max_new_tokens: int = REQUEST_TOKENS) -> Request:
        """The student's request (lab.core.request): their prompt, settings, seed and γ, drafted by
        `drafter` (default: the student's choice) with the draft length `policy`, the draft `variant`."""
        return Request(tuple(prompt_ids), drafter=drafter or self.drafter, policy=policy, gamma=self.gamma,
                       settings=self.settings, seed=self.seed, max_new_tokens=max_new_tokens, variant=variant)

    def prompt_ids(self) -> list[int]:
        """The prompt as token ids; raises PromptError with a sentence for the student."""
        return encode_prompt(self.service.pair.tokenizer, self.prompt)

    def safe_prompt_ids(self) -> list[int] | None:
        """Like prompt_ids, but records the problem in `error` and returns None."""
        try:
            ids = self.prompt_ids()
        except PromptError as err:
            self.error = str(err)
            return None
        self.error = ""
        return ids
