"""Model pairs: the registry, preparing the embedded pair (download, unpack, build its drafts),
loading a pair onto a device (packed for the CPU), the drafts a student may switch to, and the tiny
pairs the tests build."""
