"""How fast a pair is: its calls timed, its one cost profile, the measure command's α, c and
speed-ups, and a request's two generations priced on a time axis."""
