"""The named pairs of models/pairs.toml and what the command line or the environment asks for.

    spec = resolve_pair(["--pair", "weak"])          # or --target X --draft Y, --drafter, --policy
    names = listed()                                  # the pairs offered to lecturers
    teaching_drafts(spec)                             # its weak / random drafts (lab.pairs.variants)
"""
from __future__ import annotations

import argparse
import json
import os
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from lab.errors import PairError
from lab.i18n import N_, Said

REGISTRY_PATH = Path(__file__).resolve().parents[2] / "models" / "pairs.toml"
EMBEDDED = "embedded:"
TINY = "tiny:"


@dataclass(frozen=True)
class PairSpec:
    """What to load: a registry entry, or a lecturer's `--target X --draft Y` (name "custom").
    `target_id` and `draft_id` are the models' hub ids, local folders or `embedded:NAME` (the
    `target` and `draft` keys of models/pairs.toml); the models themselves are lab.pairs.load's
    ModelPair.target and .draft."""
    name: str
    target_id: str
    draft_id: str
    target_label: str = ""
    draft_label: str = ""
    needs_download: bool = False
    description: str = ""
    drafter: str = "model"
    policy: str = "constant"
    listed: bool = True       # offered to lecturers (the tiny test pairs are not)


# --- registry -------------------------------------------------------------------------------

def _read_registry(path: Path | None = None) -> tuple[str, dict[str, PairSpec]]:
    with open(path or REGISTRY_PATH, "rb") as fh:
        data = tomllib.load(fh)
    specs = {name: PairSpec(name=name, target_id=entry.pop("target"), draft_id=entry.pop("draft"), **entry)
             for name, entry in data.get("pairs", {}).items()}
    return data.get("default", next(iter(specs))), specs


def registry() -> dict[str, PairSpec]:
    """The named pairs of models/pairs.toml, default first."""
    default, specs = _read_registry()
    return {default: specs[default], **specs}


def listed(specs: dict[str, PairSpec] | None = None) -> list[str]:
    """The names offered to lecturers (the tiny test pairs are left out)."""
    return [name for name, spec in (specs or registry()).items() if spec.listed]


def default_name() -> str:
    return _read_registry()[0]


TEACHING = ("weak", "random")      # registry pairs whose drafts a student may switch to (lab.pairs.variants)


def teaching_drafts(spec: PairSpec, specs: dict[str, PairSpec] | None = None) -> dict[str, tuple]:
    """Teaching draft → (draft reference, label) for the pairs named in TEACHING that share `spec`'s
    target; the reference is None where it is `spec`'s own draft (nothing more to load)."""
    specs = specs or registry()
    return {name: (None if specs[name].draft_id == spec.draft_id else specs[name].draft_id, specs[name].draft_label)
            for name in TEACHING if name in specs and specs[name].target_id == spec.target_id}


def resolve_pair(argv: list[str] | None = None, environ: dict | None = None) -> PairSpec:
    """The pair asked for by `--pair NAME` or `--target X --draft Y` (argv wins), else by the
    environment (`SPECLAB_PAIR`, or `SPECLAB_TARGET` + `SPECLAB_DRAFT`), else the default; with
    `--drafter` / `--policy` (or `SPECLAB_DRAFTER` / `SPECLAB_POLICY`) replacing its drafting."""
    environ = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(add_help=False)
    for flag in ("--pair", "--target", "--draft", "--drafter", "--policy"):
        parser.add_argument(flag)
    args, _ = parser.parse_known_args(argv or [])
    spec = _pair_spec(args, environ)
    drafter = args.drafter or environ.get("SPECLAB_DRAFTER") or spec.drafter
    policy = args.policy or environ.get("SPECLAB_POLICY") or spec.policy
    return replace(spec, drafter=check_drafting(drafter, policy)[0], policy=policy)


def check_drafting(drafter: str, policy: str) -> tuple[str, str]:
    """Refuse, in one sentence, a drafter or draft length policy the engine does not know."""
    from lab.core.drafting import DRAFTERS, DraftPolicy
    if drafter not in DRAFTERS:
        raise PairError(Said(N_("There is no drafter {drafter}; choose one of {names}."), drafter=repr(drafter),
                             names=", ".join(DRAFTERS)))
    try:
        DraftPolicy.parse(policy)
    except ValueError as err:
        raise PairError(str(err)) from None
    return drafter, policy


def _pair_spec(args, environ) -> PairSpec:
    name = args.pair
    target, draft = args.target, args.draft
    if not (name or target or draft):
        name = environ.get("SPECLAB_PAIR")
        target, draft = environ.get("SPECLAB_TARGET"), environ.get("SPECLAB_DRAFT")
    if target or draft:
        if not (target and draft):
            given, other = ("--target", "--draft") if target else ("--draft", "--target")
            ref = target or draft
            raise PairError.naming(ref, N_("A lecturer's pair needs both --target and --draft: {given} {name} was "
                                           "given without {other}; add {other} (a hub id or local folder)."),
                                   given=given, other=other)
        return PairSpec("custom", target, draft, label(target), label(draft))
    specs = registry()
    name = name or default_name()
    if name not in specs:
        raise PairError(Said(N_("There is no pair named {name}; choose one of {names} (models/pairs.toml) or give "
                                "--target and --draft."), name=repr(name), names=", ".join(listed(specs))))
    return specs[name]


def short_ref(ref: str) -> str:
    """A model reference's last part (the embedded pair's folder, a hub id's name)."""
    return ref.removeprefix(EMBEDDED).rstrip("/").split("/")[-1]


def label(ref: str) -> str:
    """The badge's name for a lecturer's target or draft: a hub id's last part; a local folder by the
    hub model it was saved from (its config's `_name_or_path`), else by its parent's and its own
    name ("llama-8b/target", not "target")."""
    path = Path(ref).expanduser()
    if not path.is_dir():
        return short_ref(ref)
    try:
        saved = str(json.loads((path / "config.json").read_text()).get("_name_or_path") or "")
    except (OSError, ValueError, AttributeError):
        saved = ""
    if saved and not saved.startswith((".", "/", "~")) and "\\" not in saved and saved.count("/") <= 1:
        return short_ref(saved)
    return "/".join(path.resolve().parts[-2:])
