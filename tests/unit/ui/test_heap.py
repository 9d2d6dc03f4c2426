"""The freeze after a page's full run: once per new set of modules, and it takes what exists out of collection."""

from __future__ import annotations

import gc
import sys
import types

import pytest

from interconnect.ui import heap


@pytest.fixture
def thawed(monkeypatch):
    """Each test starts with nothing frozen and no freeze remembered, and leaves the process as it found it."""
    gc.unfreeze()
    monkeypatch.setattr(heap, "_modules_at_freeze", 0)
    yield
    gc.unfreeze()


def test_freezes_once_per_set_of_modules(thawed, monkeypatch):
    assert heap.settle_long_lived() is True
    frozen = gc.get_freeze_count()
    assert frozen > 1000  # the interpreter, pytest and the app's modules
    assert heap.settle_long_lived() is False  # nothing imported since: no second collection
    monkeypatch.setitem(sys.modules, "_heap_test_module", types.ModuleType("_heap_test_module"))
    assert heap.settle_long_lived() is True  # a page imported something new: frozen again
    assert gc.get_freeze_count() >= frozen


def test_later_collections_walk_only_what_came_after(thawed):
    heap.settle_long_lived()
    tracked_before = len(gc.get_objects())
    made_after = [[i] for i in range(500)]
    assert len(gc.get_objects()) - tracked_before >= 500  # only the new lists are left to walk
    assert len(gc.get_objects()) < gc.get_freeze_count()  # far fewer than the frozen ones
    del made_after


def test_frozen_objects_are_still_freed_when_unreferenced(thawed):
    import weakref

    class Box:
        pass

    box = Box()
    ref = weakref.ref(box)
    heap.settle_long_lived()
    del box
    assert ref() is None  # reference counting still frees a frozen object nothing refers to
