"""Step 1 of distillation: a text corpus from what is already on the machine, plus seed prompts.

Sources (all offline): Python's standard library (code), README/docs files in /usr/share/doc and
site-packages (prose), man pages rendered to text (prose), JSON files and synthetic JSON records.
Seeds are short openings (stories, facts, instructions, code, JSON) that the target continues in
label.py so the draft also sees the target's own text. Held-out prompts are excluded.

    python -m models.distil.corpus          # writes $SPECLAB_CACHE/distil/corpus/*.jsonl
"""
from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
import sysconfig
from pathlib import Path

from lab.pairs.prepare import cache_dir
from lab.prompts import heldout_prompts

MAX_DOC_CHARS = 12_000


def distil_dir() -> Path:
    return cache_dir() / "distil"


def _read(path: Path) -> str | None:
    try:
        raw = path.read_bytes()[: 4 * MAX_DOC_CHARS]
        if path.suffix == ".gz":
            raw = gzip.decompress(path.read_bytes())[: 4 * MAX_DOC_CHARS]
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile):
        return None
    return text if len(text) > 200 else None


def _chunks(text: str) -> list[str]:
    """Split long documents at blank lines into pieces under MAX_DOC_CHARS."""
    out, cur = [], ""
    for part in text.split("\n\n"):
        if len(cur) + len(part) > MAX_DOC_CHARS and cur:
            out.append(cur)
            cur = ""
        cur += part + "\n\n"
    if len(cur) > 200:
        out.append(cur[:MAX_DOC_CHARS])
    return out


def code_docs(rng: random.Random) -> list[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = [p for p in stdlib.rglob("*.py") if "site-packages" not in p.parts]
    rng.shuffle(files)
    docs = []
    for p in files[:3000]:
        text = _read(p)
        if text:
            docs += _chunks(text)
    return docs


def prose_docs(rng: random.Random) -> list[str]:
    roots = [Path("/usr/share/doc"), Path(sysconfig.get_paths()["purelib"])]
    files = []
    for root in roots:
        for pat in ("*.md", "*.rst", "*.txt", "README*"):
            files += [p for p in root.rglob(pat) if p.is_file() and p.stat().st_size > 1000]
    rng.shuffle(files)
    docs = []
    for p in files[:2500]:
        text = _read(p)
        if text and text.count(" ") > len(text) / 12:  # mostly words, not tables of numbers
            docs += _chunks(text)
    mans = sorted(Path("/usr/share/man/man1").glob("*.gz"))
    rng.shuffle(mans)
    for p in mans[:300]:
        try:
            text = subprocess.run(["man", "-P", "cat", str(p)], capture_output=True, text=True, timeout=10,
                                  env={"MANWIDTH": "100", "PATH": "/usr/bin:/bin"}).stdout
        except (subprocess.SubprocessError, OSError):
            continue
        if len(text) > 500:
            docs += _chunks(text)
    return docs


NAMES = ["Alice", "Bob", "Carol", "David", "Emma", "Farid", "Grace", "Hiro", "Ines", "Jamal", "Kofi", "Lena",
         "Mateo", "Nora", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tara", "Umar", "Vera", "Wei", "Yuki", "Zoe"]
CITIES = ["Paris", "London", "Berlin", "Madrid", "Rome", "Lisbon", "Oslo", "Cairo", "Lagos", "Nairobi", "Delhi",
          "Mumbai", "Seoul", "Sydney", "Toronto", "Chicago", "Denver", "Lima", "Quito", "Hanoi", "Dublin"]
WORDS = ["apple", "river", "window", "garden", "engine", "planet", "music", "forest", "bridge", "coffee", "laptop",
         "phone", "ticket", "order", "invoice", "sensor", "camera", "book", "movie", "song", "team", "project"]


def _json_value(rng: random.Random, depth: int = 0):
    kind = rng.random()
    if depth < 2 and kind < 0.2:
        return {_key(rng): _json_value(rng, depth + 1) for _ in range(rng.randint(1, 4))}
    if depth < 2 and kind < 0.3:
        return [_json_value(rng, depth + 1) for _ in range(rng.randint(1, 3))]
    return rng.choice([rng.randint(0, 5000), round(rng.uniform(0, 1000), 2), rng.choice([True, False, None]),
                       rng.choice(NAMES), rng.choice(CITIES), rng.choice(WORDS),
                       f"{rng.choice(NAMES).lower()}@example.com", f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"])


def _key(rng: random.Random) -> str:
    return rng.choice(["id", "name", "age", "city", "email", "title", "price", "count", "status", "tags", "items",
                       "created_at", "user_id", "description", "active", "score", "type", "value", "country",
                       "quantity", "address", "phone", "category", "author", "year", "rating", "done"])


def json_docs(rng: random.Random) -> list[str]:
    docs = []
    for _ in range(3000):  # synthetic records in the shapes people ask for
        record = [{_key(rng): _json_value(rng) for _ in range(rng.randint(2, 7))} for _ in range(rng.randint(1, 5))]
        record = record[0] if len(record) == 1 else {rng.choice(["data", "items", "users", "results"]): record}
        docs.append(json.dumps(record, indent=rng.choice([None, 2, 4])))
    files = [p for p in Path(sysconfig.get_paths()["purelib"]).rglob("*.json") if 500 < p.stat().st_size < 200_000]
    rng.shuffle(files)
    for p in files[:800]:
        text = _read(p)
        if text and "tokenizer" not in p.name and text.count("\\u") < 20:
            docs += _chunks(text)[:2]
    return docs


STORY = ["Once upon a time, there was a {adj} {animal} named {name} who",
         "{name} had always wanted to visit {city}. One day,",
         "The {adj} {animal} looked at the sky and",
         "In a kingdom far away, a young {job} named {name}",
         "Every morning, {name} walked to the {place}. But today",
         "Once there was a little {animal} who lived near a {place}. It",
         "The storm arrived at night. {name} woke up and"]
FACTS = ["The capital of {country} is", "{city} is a city in", "The {animal} is a",
         "A {thing} is", "The main function of the {organ} is to", "{thing}s are used for",
         "The {planet} is the", "In science, {topic} is"]
INSTR = ["How to {task}:\n1.", "Steps to {task}:\n\n1.", "Here is how to {task}.\n\nFirst,",
         "Tips for {task}:\n-", "Question: How do I {task}?\nAnswer:"]
CODE = ["def {fn}(", "def {fn}(items):\n", "class {cls}:\n    def __init__(self", "import {mod}\n\n\ndef {fn}(",
        "# {task}\n", "for i in range(", "with open(", "if __name__ == \"__main__\":\n"]
JSONS = ['{{"{k1}": "{name}", "{k2}":', '[\n  {{"{k1}": {num}, "{k2}":', '{{\n  "{k1}": "{word}",\n  "{k2}":',
         '{{"{k1}": [{{"{k2}":']
FILL = {"adj": ["brave", "tiny", "curious", "lonely", "clever", "sleepy", "happy", "old", "young", "shy"],
        "animal": ["fox", "rabbit", "cat", "dog", "owl", "bear", "mouse", "turtle", "lion", "bird", "whale"],
        "name": NAMES, "city": CITIES, "job": ["baker", "knight", "farmer", "painter", "sailor", "doctor", "teacher"],
        "place": ["river", "market", "library", "park", "castle", "school", "beach", "mountain", "bakery"],
        "country": ["Germany", "Italy", "Spain", "Kenya", "Brazil", "Canada", "India", "Egypt", "Peru", "Norway"],
        "thing": ["computer", "bicycle", "volcano", "battery", "telescope", "vaccine", "rainbow", "magnet", "cloud"],
        "organ": ["liver", "brain", "lungs", "kidney", "skin", "stomach"],
        "planet": ["Sun", "Mars", "Jupiter", "Venus", "Saturn", "Earth"],
        "topic": ["gravity", "evolution", "energy", "an atom", "a cell", "friction", "temperature", "a molecule"],
        "task": ["bake bread", "learn a language", "write a resume", "save money", "clean a kitchen",
                 "train a puppy", "sort a list in Python", "read a file line by line", "change a tire",
                 "prepare for an exam", "start running", "organize a desk", "make a budget", "cook rice"],
        "fn": ["parse_line", "count_words", "merge_lists", "load_config", "average", "reverse_string", "factorial",
               "flatten", "is_palindrome", "find_max", "send_email", "read_json", "chunk", "unique"],
        "cls": ["Queue", "Node", "BankAccount", "Matrix", "Timer", "Inventory", "User", "Cache"],
        "mod": ["json", "re", "math", "random", "collections", "itertools", "datetime", "pathlib"],
        "k1": ["name", "id", "title", "user", "city", "product"], "k2": ["age", "email", "price", "tags", "done"],
        "num": ["1", "2", "10", "42"], "word": WORDS}


def seeds(rng: random.Random, n: int = 6000) -> list[str]:
    held = {p for ps in heldout_prompts().values() for p in ps}
    out = []
    groups = [STORY, STORY, FACTS, INSTR, CODE, JSONS]
    while len(out) < n:
        template = rng.choice(rng.choice(groups))
        text = template.format(**{k: rng.choice(v) for k, v in FILL.items()})
        if text not in held:
            out.append(text)
    return out


def main(argv: list[str] | None = None) -> int:
    rng = random.Random(0)
    out = distil_dir() / "corpus"
    out.mkdir(parents=True, exist_ok=True)
    for name, build in (("code", code_docs), ("prose", prose_docs), ("json", json_docs)):
        docs = build(rng)
        rng.shuffle(docs)
        with open(out / f"{name}.jsonl", "w") as fh:
            for d in docs:
                fh.write(json.dumps({"text": d}) + "\n")
        print(f"{name}: {len(docs)} documents, {sum(map(len, docs)) / 1e6:.1f} M chars", flush=True)
    with open(out / "seeds.jsonl", "w") as fh:
        for s in seeds(rng):
            fh.write(json.dumps({"text": s}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
