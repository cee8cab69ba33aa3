"""serving.serviceprofiles: a model service's cost profiles, one per draft variant, measured once with
lab.speed.costs and shared by every caller of that service; nothing about them in a module, so
another service (another server) measures its own."""
from lab.pairs.tiny import tiny_pair
from lab.speed import costs
from serving.service import ModelService
from tests.helpers import made_profile


def scripted(monkeypatch, *profiles):
    """lab.speed.costs' measurers replaced by the next of `profiles` per call (the last one repeated);
    returns the pairs measured, in order."""
    measured, left = [], list(profiles)

    def next_profile(pair):
        measured.append(pair)
        return left.pop(0) if len(left) > 1 else left[0]

    def steps(pair):
        yield
        return next_profile(pair)
    monkeypatch.setattr(costs, "measure_profile", next_profile)
    monkeypatch.setattr(costs, "measure_profile_steps", steps)
    return measured


def run(steps):
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


def test_each_draft_variant_has_its_own_profile_and_already_measured_loads_nothing(monkeypatch):
    measured = scripted(monkeypatch, made_profile(pair="aligned"), made_profile(pair="random"))
    pair = tiny_pair()
    service = ModelService(lambda: pair)
    profiles = service.profiles
    assert profiles.already_measured() is None and profiles.already_measured("random") is None
    aligned = profiles.of()
    assert aligned is profiles.of("aligned") is profiles.already_measured() and measured == [pair]
    assert profiles.already_measured("random") is None                  # random: not loaded yet
    assert service.variants.loaded(pair, "random") is None
    random = run(profiles.of_steps("random"))                           # the warm-up's form
    assert random is not aligned and profiles.already_measured("random") is random
    assert profiles.measured(service.pair_for("random")) is random and len(measured) == 2


def test_a_service_measures_each_pair_once_and_another_service_its_own(monkeypatch):
    measured = scripted(monkeypatch, made_profile(draft=0.1), made_profile(draft=0.2))
    pair = tiny_pair()
    first, second = ModelService(lambda: pair), ModelService(lambda: pair)
    got = first.profiles.of()
    assert first.profiles.of() is got and run(first.profiles.of_steps()) is got and measured == [pair]
    assert second.profiles.already_measured() is None and second.profiles.measured(pair) is None
    assert second.profiles.of() is not got and len(measured) == 2

