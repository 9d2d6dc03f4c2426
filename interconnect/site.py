"""The list of topics: one entry per page, which drives the sidebar, the home cards and the CLI.

Adding a topic is one folder under ``interconnect/topics/``, its page script in ``pages/``, its data file,
its tests and one :class:`Topic` line in :data:`TOPICS`. The pages' link parameters and views are found by
name in each topic's ``inputs`` module (``<name>_specs()`` and ``<NAME>_VIEWS``). A topic's modules are named
by their dotted paths and imported only when asked for, so a page does not pay for the others.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["HOME", "TOPICS", "Topic", "cli_modules", "inputs_of", "known_link_keys", "page_exists", "page_for_path",
           "page_specs", "page_views", "pages", "tour_steps"]


@dataclass(frozen=True)
class Topic:
    """One page of the app.

    Attributes
    ----------
    name : str
        Short name used by tour steps, claims, tests and links between pages (``allreduce``).
    script : str
        The page's script, relative to the repository (``pages/2_All_reduce.py``); its file name is the URL.
    title : str
        The page's name in the sidebar.
    card : str
        The home card's title; empty for no card.
    line : str
        The home card's one line on what the page shows.
    cli : bool
        Whether the topic has a ``cli`` module with ``register(commands)``.
    """

    name: str
    script: str
    title: str
    card: str = ""
    line: str = ""
    cli: bool = False

    @property
    def package(self) -> str:
        return f"interconnect.topics.{self.name}"


#: The home page: first in the sidebar, not a topic.
HOME = Topic("home", "app.py", "Home")

#: Every topic, in the sidebar's and the home cards' order.
TOPICS: tuple[Topic, ...] = (
    Topic("cliff", "pages/1_Bandwidth_cliff.py", "Bandwidth cliff", "The bandwidth cliff",
          "Inside the server against outside it, like for like, for every GPU in its own server.", cli=True),
    Topic("allreduce", "pages/2_All_reduce.py", "All-reduce", "All-reduce",
          "What the cliff costs a training step: time by algorithm, message size and cluster.", cli=True),
    Topic("overlap", "pages/3_Overlap.py", "Overlap", "Overlap",
          "Hide the gradient all-reduce behind the backward pass, and see what stays exposed.", cli=True),
    Topic("seating", "pages/4_Seating_chart.py", "Seating chart", "Seating chart",
          "Seat tensor, pipeline and data parallelism on the wires they can afford.", cli=True),
    Topic("reach", "pages/5_Reach.py", "Reach", "Reach",
          "Fast links are on a short leash: what distance does to links, latency and training.", cli=True),
    Topic("crossdc", "pages/6_Across_sites.py", "Across sites", "Across sites",
          "DiLoCo, Streaming DiLoCo and SparseLoCo: the WAN bandwidth that keeps GPUs busy.", cli=True),
    Topic("claims", "pages/7_Claims.py", "Claims checked", "Claims checked",
          "Popular figures beside what the sources say, and why they differ."),
    Topic("units", "pages/8_Unit_traps.py", "Unit traps", "Unit traps",
          "Per direction or both, Gbit or GB, busbw or algbw: and a converter."),
    Topic("catalog", "pages/9_Catalog.py", "Catalog and sources", "Catalog and sources",
          "Every figure with its unit, its direction and where it comes from.", cli=True),
    Topic("fabric", "pages/10_Fabric.py", "Fabric", "Fabric",
          "From GPUs to switches, optics and watts: tiers, rails, oversubscription and what they cost.", cli=True),
    Topic("explain", "pages/11_Explain.py", "Explain my run", "Explain my run",
          "Paste a job's NCCL_DEBUG=INFO log: transports, NICs, GPUDirect RDMA and NVLS, line by line.", cli=True),
)


def pages() -> dict[str, tuple[str, str]]:
    """Short name -> (script, sidebar title), home first."""
    return {topic.name: (topic.script, topic.title) for topic in (HOME, *TOPICS)}


_ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def page_exists(name: str) -> bool:
    """Whether a page's script is present in this checkout; asked once per process."""
    return (_ROOT / pages()[name][0]).is_file()


def page_for_path(path: str) -> str | None:
    """The page script a mistyped URL path most likely meant (``/all_reduce`` -> the All-reduce page).

    Matches the page's URL name case-insensitively, ignoring ``-``/``_``/spaces; None if no page fits.

    >>> page_for_path("/ALL-REDUCE/")
    'pages/2_All_reduce.py'
    >>> page_for_path("/no-such-page") is None
    True
    """
    def normal(text: str) -> str:
        return "".join(char for char in text.lower() if char.isalnum())

    wanted = normal(path.rstrip("/").rsplit("/", 1)[-1])
    if not wanted:
        return None
    for script, _ in pages().values():
        url_name = Path(script).stem.split("_", 1)[-1] if script.startswith("pages/") else ""
        if url_name and normal(url_name) == wanted and (_ROOT / script).is_file():
            return script
    return None


@functools.cache
def tour_steps() -> tuple:
    """The guided tour's steps (:class:`~interconnect.catalog.TourStep`) whose page exists in this checkout,
    read once per process."""
    from interconnect.catalog import load_tour

    return tuple(step for step in load_tour() if step.page in pages() and page_exists(step.page))


def cli_modules() -> tuple[str, ...]:
    """The dotted paths of the modules that register CLI sub-commands, in the sidebar's order; ``export``
    (views of every page) comes last."""
    return (*(f"{topic.package}.cli" for topic in TOPICS if topic.cli), "interconnect.cli.export")


def inputs_of(name: str) -> ModuleType:
    """The module that declares a page's inputs: :mod:`interconnect.inputs.links` for the home page, else the
    topic's ``inputs`` module (imported on first use)."""
    module = "interconnect.inputs.links" if name == HOME.name else f"interconnect.topics.{name}.inputs"
    return importlib.import_module(module)


def page_specs() -> dict[str, Callable[[], list]]:
    """Short name -> the function that lists the page's link parameters (``<name>_specs`` of its inputs)."""
    return {topic.name: getattr(inputs_of(topic.name), f"{topic.name}_specs") for topic in (HOME, *TOPICS)}


@functools.cache
def page_views() -> dict[str, Any]:
    """Short name -> the :class:`~interconnect.inputs.links.PageViews` of every page that reads ``view``
    (``<NAME>_VIEWS`` of its inputs)."""
    found = {}
    for topic in (HOME, *TOPICS):
        views = getattr(inputs_of(topic.name), f"{topic.name.upper()}_VIEWS", None)
        if views is not None:
            found[topic.name] = views
    return found


@functools.cache
def known_link_keys() -> frozenset[str]:
    """Every link key some page uses (so a key from another page is not called unknown): the global keys,
    every page's parameters and the cluster's."""
    from interconnect.inputs.cluster import CLUSTER_KEYS
    from interconnect.inputs.links import GLOBAL_KEYS

    keys = set(GLOBAL_KEYS) | set(CLUSTER_KEYS)
    for specs in page_specs().values():
        keys.update(spec.key for spec in specs())
    return frozenset(keys)
