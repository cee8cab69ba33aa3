"""The class poll's chart: bars per answer, readable axis labels."""
from uikit.pollchart import PollChart


def test_a_zero_to_twenty_axis_labels_every_fifth_number_and_choices_keep_every_label():
    numbers = PollChart([str(i) for i in range(21)], numeric=True)
    axis = numbers.figure.xaxis[0]
    assert axis.ticker.ticks == [0, 5, 10, 15, 20]
    assert axis.major_label_overrides == {0: "0", 5: "5", 10: "10", 15: "15", 20: "20"}
    numbers.show([0] * 7 + [3] + [0] * 13, mine=7)
    assert numbers.source.data["bar"][7] == 7 and numbers.source.data["label"][7] == "3 · you"
    assert PollChart([str(i) for i in range(6)], numeric=True).figure.xaxis[0].ticker.ticks == list(range(6))
    choices = PollChart(["faster", "slower"])
    assert list(choices.figure.x_range.factors) == ["A", "B"] and choices.source.data["bar"] == ["A", "B"]
