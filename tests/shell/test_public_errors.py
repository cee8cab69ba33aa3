"""Pages never show server paths: the loader, a broken chapter and the lecturer's switch say one
path-free sentence; the log keeps the details."""
import asyncio
import logging

from lab.errors import PairError
from shell.lecturer import controls as lecturer
from shell.frame.loading import PairLoader
from shell.frame.pages import broken_page
from chapters import registry

SECRET = "/srv/secret/models/target"


def test_a_failed_load_shows_no_server_path(monkeypatch, caplog):
    import serving.runtime

    def boom(argv, progress=None):
        progress(0.5, f"unpacking into {SECRET}/weights")
        raise OSError(2, "No such file or directory", f"{SECRET}/config.json")
    monkeypatch.setattr(serving.runtime, "load_requested", boom)
    loader = PairLoader()
    with caplog.at_level(logging.ERROR):
        loader.load()
    assert loader.error and "/srv" not in loader.error and "FileNotFoundError" in loader.error
    assert "/srv" not in loader.message
    assert SECRET in caplog.text                                 # the log keeps it


def test_a_broken_chapter_shows_no_server_path():
    page = registry.chapter_pages()[0]
    pane = broken_page(page, PermissionError(13, "Permission denied", SECRET))
    assert "/srv" not in pane.object and "could not be built" in pane.object


def test_a_failed_switch_shows_no_server_path(monkeypatch, the_class):
    monkeypatch.setenv("SPECLAB_PAIR", "tiny")
    panel = lecturer.LecturerPanel(the_class, "s1")

    def refuse(name):
        raise PairError(f"The target folder {SECRET} has no config.json; pick another.",
                        public="The target folder 'target' has no config.json; pick another.")
    monkeypatch.setattr(the_class.pair, "switch", refuse)
    asyncio.run(panel.switch())
    assert "&#x27;target&#x27; has no config.json" in panel.status.object and "/srv" not in panel.status.object
