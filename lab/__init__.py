"""The lab's science, without Panel: lab.core (decoding and the analytic model), lab.pairs (finding,
preparing and loading model pairs), lab.speed (timing, the cost profile, measurement) and
lab.experiments (what the chapters compute). devices, errors and prompts serve all four.

Importing `lab` before torch caps how long torch's OpenMP threads spin at the end of a parallel
region (`GOMP_SPINCOUNT`) when the models will be packed, unless the environment already says: the
packed verify passes (lab.pairs.packing) are fast only with some spinning, and a long spin stalls them
for seconds while other work holds a core.
"""
import os as _os

if _os.environ.get("SPECLAB_PACK", "1") != "0":     # only packed layers need it (lab.pairs.packing)
    _os.environ.setdefault("GOMP_SPINCOUNT", "10000")
