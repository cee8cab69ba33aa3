"""A fresh server's class state for each shell test (shell.frame.classstate): nothing shared between tests."""
import pytest


@pytest.fixture
def the_class():
    """A class alone in memory (no shared store), as a server's first page would find it."""
    from shell.frame.classstate import ClassState
    return ClassState()


@pytest.fixture(scope="module")
def extension():
    """Panel's extension loaded inline, as an exported page carries it (export/)."""
    import panel as pn
    pn.extension(inline=True)
