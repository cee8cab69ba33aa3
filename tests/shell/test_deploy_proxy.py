"""deploy/proxy.py without nginx: the site it renders for the machines, and the ports it hands to
servers started side by side (two machines and their proxy must never share one)."""
from __future__ import annotations

import pytest

import deploy.proxy as proxy


class _OfferedAgain:
    """A socket whose kernel offers the ports in `offers`, one per bind (a just-closed port again)."""

    def __init__(self, offers: list[int]):
        self.offers = offers

    def __call__(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def bind(self, address):
        self.port = self.offers.pop(0)

    def getsockname(self):
        return ("127.0.0.1", self.port)


def test_a_port_the_kernel_offers_twice_is_handed_out_once(monkeypatch):
    monkeypatch.setattr(proxy, "_HANDED_OUT", set())
    monkeypatch.setattr(proxy.socket, "socket", _OfferedAgain([41001, 41001, 41001, 41002]))
    assert [proxy.free_port(), proxy.free_port()] == [41001, 41002]


def test_ports_handed_out_in_one_process_are_all_different():
    ports = [proxy.free_port() for _ in range(64)]
    assert len(set(ports)) == 64


def test_the_site_names_each_machine_and_refuses_anything_but_an_address():
    text = proxy.site(["10.0.0.11:5006", "10.0.0.12:5006"], "8080")
    assert "    server 10.0.0.11:5006 max_fails=1 fail_timeout=10s;" in text
    assert "    server 10.0.0.12:5006 max_fails=1 fail_timeout=10s;" in text
    assert "listen 8080;" in text and "@" not in text.split("upstream speclab", 1)[1]
    for machines, listen in ((["10.0.0.11:5006; include /etc/passwd"], "80"), ([], "80"),
                             (["10.0.0.11:5006"], "80; root /")):
        with pytest.raises(ValueError):
            proxy.site(machines, listen)
