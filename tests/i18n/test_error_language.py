"""Error sentences speak each page's language: a pair that cannot be loaded (the landing page's loader,
a lecturer's switch, the badge's refused pair), an unexpected error, and the class store's (a refused
folder or file, a full disk under SQLite, a Redis that cannot be reached). Each is made once, in
English, where the failure happens (the terminal says that, with its paths); each page shows it in
its own language, without server paths (lab.i18n.Said, uikit.language.say)."""
from __future__ import annotations

import errno
import re

import pytest
from bokeh.document import Document
from panel.io.state import set_curdoc

from lab import devices
from lab.errors import PairError, public_message
from lab.i18n import Said
from lab.pairs.load import _config_dict
from shell.frame.loading import PairLoader, loading_view
from shell.frame.app import load_html
from shell.room.line import PageLine
from shell.store.files import StoreRefused, _why, claim
from shell.store.shared import open_class_store
from uikit.language import say, use_language

ENGLISH = re.compile(r"\b(the|class|store|folder|cannot|other|users|process|keeps)\b", re.IGNORECASE)
NAMES = re.compile(r"SPECLAB_STORE|~/speclab/class\.sqlite")     # what a lecturer types stays as it is


def english(said: str):
    """English words left in a sentence, apart from names a lecturer types."""
    return ENGLISH.search(NAMES.sub("", said))


def page(language: str) -> Document:
    doc = Document()
    use_language(language, doc)
    return doc


@pytest.fixture
def refused(tmp_path) -> StoreRefused:
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o1777)                         # like /tmp: others can write it
    with pytest.raises(StoreRefused) as caught:
        claim(folder / "class.sqlite")
    return caught.value


def test_a_refused_folder_is_english_with_its_path_in_the_terminal_and_each_pages_language_on_pages(refused, tmp_path):
    folder = str(tmp_path / "shared")
    assert str(refused).startswith(f"The class store's folder {folder} can be written by other users")
    assert "  " not in refused.public and folder not in refused.public
    with set_curdoc(page("es")):
        spanish = say(refused.public)
    with set_curdoc(page("zh")):
        chinese = say(refused.public)
    assert spanish.startswith("Otros usuarios pueden escribir en la carpeta del almacén de la clase")
    assert "全班存储的文件夹" in chinese and "chmod 700" in chinese
    for said in (spanish, chinese):
        assert folder not in said and "  " not in said and not english(said), said
    assert say(refused.public) == refused.public            # outside a page: English


def test_the_reason_of_a_system_error_is_said_in_the_pages_words():
    full = _why(OSError(errno.ENOSPC, "No space left on device"))
    assert isinstance(full, Said) and full == "the disk is full"
    assert full.in_language("es") == "el disco está lleno" and full.in_language("zh") == "磁盘已满"
    assert _why(OSError(errno.EBUSY, "Device or resource busy")) == "device or resource busy"   # the system's own
    nested = Said("The class store {path} cannot be written ({why}); set SPECLAB_STORE to a file in a folder "
                  "you can write.", path="", why=full)
    assert nested.in_language("es").startswith("No se puede escribir en el almacén de la clase (el disco está lleno)")


def test_the_lecturers_view_shows_a_store_that_cannot_be_opened_in_its_language(tmp_path, monkeypatch):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o1777)
    store, problem = open_class_store({"SPECLAB_STORE": str(folder / "class.sqlite")})
    assert store is None and isinstance(problem, Said)
    assert problem.endswith("Each server process keeps its own poll and settings until then.")
    with set_curdoc(page("es")):
        shown = load_html(PageLine(), problem)
    assert "Hasta entonces, cada proceso del servidor guarda su propia encuesta" in shown
    assert "Otros usuarios pueden escribir" in shown and str(folder) not in shown


@pytest.mark.parametrize("exc, words", [(ConnectionError("Connection refused"), "无法连接"),
                                       (None, "拒绝了密码")])
def test_a_redis_fault_is_said_in_the_pages_language(exc, words, caplog):
    import redis
    from shell.store.redis.store import RedisStore
    exc = exc and redis.ConnectionError(str(exc)) or redis.AuthenticationError("WRONGPASS invalid password")
    store = RedisStore.__new__(RedisStore)                  # only its fault sentence: no server
    store.where, store.problem, store._faulted = "redis://localhost:6379/0", None, 0.0
    store.fault(exc)
    assert isinstance(store.problem, Said) and str(store.problem).startswith("The class's shared store (Redis) ")
    assert store.problem.in_language("zh").startswith("全班共享的存储（Redis）此刻" + words)
    assert not english(store.problem.in_language("es"))


def test_a_pair_that_cannot_be_loaded_is_said_on_the_loading_page_in_its_language(tmp_path):
    folder = tmp_path / "my-target"
    folder.mkdir()
    with pytest.raises(PairError) as caught:
        _config_dict(folder, "target")
    assert str(caught.value) == (f"The target model folder {folder} has no config.json; point to a saved Hugging Face "
                                 "model folder.")                   # the terminal's English, with the path
    loader = PairLoader()
    loader.error = public_message(caught.value)
    view, refresh = loading_view(loader)
    with set_curdoc(page("es")):
        refresh()
        said = view.objects[0].object
    assert "La carpeta del modelo objetivo &#x27;my-target&#x27; no tiene config.json" in said, said
    assert str(tmp_path) not in said
    with set_curdoc(page("zh")):
        refresh()
        said = view.objects[0].object
    assert "目标模型文件夹 &#x27;my-target&#x27; 中没有 config.json" in said and not english(said.split("</p>")[0]
                                                                                        .split(">")[-1]), said


def test_a_device_that_is_not_here_is_said_in_the_badges_language():
    note = devices.choose("tpu").note
    assert note == "There is no device 'tpu' (choose auto, cpu, cuda or mps); the pair runs on the CPU in float32."
    assert note.in_language("es") == ("No hay ningún dispositivo 'tpu' (elige auto, cpu, cuda o mps); el par funciona "
                                      "en la CPU en float32.")
    with set_curdoc(page("zh")):
        assert say(note).startswith("没有名为 'tpu' 的设备")
