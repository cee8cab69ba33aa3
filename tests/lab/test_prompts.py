import pytest

from lab.prompts import MAX_PROMPT_CHARS, PromptError, clean_prompt, encode_prompt
from lab.pairs.tiny import tiny_pair


@pytest.fixture(scope="module")
def tok():
    return tiny_pair().tokenizer


@pytest.mark.parametrize("text, message", [
    ("", "empty"), ("   \n\t ", "empty"), ("\x00\x01\x07", "empty"),
    ("x" * 100_000, "100,000 characters"), (None, "must be text"), (b"\xff\xfe", "must be text"),
])
def test_bad_prompts_get_one_sentence(tok, text, message):
    with pytest.raises(PromptError, match=message) as err:
        encode_prompt(tok, text)
    sentence = str(err.value)
    assert sentence.endswith(".") and sentence.count(". ") == 0 and "\n" not in sentence


def test_control_characters_are_removed_but_text_kept():
    assert clean_prompt("the\x00 cat\x1b sat\n") == "the cat sat\n"


def test_limits_are_what_they_say(tok):
    assert encode_prompt(tok, "the " * (MAX_PROMPT_CHARS // 4 - 1))
    with pytest.raises(PromptError):
        encode_prompt(tok, "the " * 300)            # under the character limit, over 256 tokens


def test_html_is_just_text(tok):
    # The models see markup as characters like any other; pages escape it (tests/ui checks that).
    assert clean_prompt("<script>alert(1)</script>") == "<script>alert(1)</script>"
