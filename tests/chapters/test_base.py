"""What every chapter does: model work that fails is one sentence, and the page stays usable."""


def test_a_failing_model_call_is_one_sentence_and_the_page_stays_usable(state):
    import asyncio

    from chapters.base import Chapter

    def boom():
        raise RuntimeError("out of memory")

    ch = Chapter(state)
    assert asyncio.run(ch.run_model(boom)) is None
    assert "could not finish" in ch.problem.object and not ch.busy.active
