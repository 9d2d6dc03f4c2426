"""Link parameters every page shares: the global keys (presentation, tour, stop), the tour's stop,
and the secondary chart a page draws (``view=``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import urlencode

from interconnect.inputs.params import (
    ChoiceParam,
    ParamWarning,
    read_value,
    safe_echo,
)
from interconnect.units import IntegerInputError, read_int

#: The key a page's own script puts in the address when Streamlit ignored the whole link (more than
#: :data:`MAX_LINK_FIELDS` parameters): its value is how many the link had, for the page's warning.
TOO_MANY_KEY = "too_many"
#: Streamlit 1.67 ignores a query string of more than 1,000 parameters or 512 Ki characters, all of it
#: (streamlit.runtime.state.query_params.sanitize_query_string).
MAX_LINK_FIELDS = 1000
MAX_LINK_CHARS = 512 * 1024

#: Link keys every page accepts (presentation mode, the guided tour and the tour's stop, and the mark of a
#: link Streamlit ignored).
GLOBAL_KEYS = frozenset({"present", "tour", "stop", TOO_MANY_KEY})


#: The Across-sites page's step-time modes (its key ``step``); a legacy tour link's ``step`` is never one.
STEP_MODES = ("typed", "derived")
#: Links made before the tour's stop had its own key carried it in ``step`` (``tour=1&step=3``),
#: the key the Across-sites page uses for its step-time mode. The two never share a value.
LEGACY_TOUR_STEP_KEY = "step"


def is_legacy_tour_step(query: Mapping[str, object]) -> bool:
    """True if ``query`` is an old tour link whose ``step`` is the tour's stop, not a step-time mode.

    >>> is_legacy_tour_step({"tour": "1", "step": "8"}), is_legacy_tour_step({"tour": "1", "step": "derived"})
    (True, False)
    >>> is_legacy_tour_step({"step": "8"}), is_legacy_tour_step({"tour": "1", "stop": "8", "step": "8"})
    (False, False)
    """
    if _text(query.get("tour")).strip() != "1" or "stop" in query or LEGACY_TOUR_STEP_KEY not in query:
        return False
    return _text(query.get(LEGACY_TOUR_STEP_KEY)).strip().lower() not in STEP_MODES


def page_query(query: Mapping[str, object]) -> dict[str, object]:
    """The link as a page reads its own keys: an old tour link's ``step`` belongs to the tour.

    >>> page_query({"tour": "1", "step": "8", "bw": "1 Gbit/s"})
    {'tour': '1', 'bw': '1 Gbit/s'}
    """
    if not is_legacy_tour_step(query):
        return dict(query)
    return {key: value for key, value in query.items() if key != LEGACY_TOUR_STEP_KEY}


def tour_stop(query: Mapping[str, object], stops: int) -> tuple[int, ParamWarning | None]:
    """The guided tour's stop (1-based; 0 = not on the tour) and a warning if the link's was unusable.

    Read from ``stop``, or from an old link's ``step``, with the strict whole-number reader; a stop
    that is not a number of this tour falls back to the first, with a warning naming the key.

    >>> tour_stop({"tour": "1", "stop": "3"}, 9), tour_stop({"tour": "1", "step": "3"}, 9), tour_stop({}, 9)
    ((3, None), (3, None), (0, None))
    >>> tour_stop({"tour": "1", "stop": "\u00b2"}, 9)[1].message()
    'Guided tour stop (link parameter `stop`): not a whole number (ASCII digits only) (got `²`); using `1`.'
    """
    if _text(query.get("tour")).strip() != "1":
        return 0, None
    key = "stop" if "stop" in query else LEGACY_TOUR_STEP_KEY if is_legacy_tour_step(query) else None
    if key is None:
        return 1, None
    raw = _text(query.get(key))
    try:
        return read_int(raw, minimum=1, maximum=max(stops, 1)), None
    except IntegerInputError as exc:
        reason = exc.reason if exc.nearest is None else f"not a stop of this tour (1 to {stops})"
        return 1, ParamWarning(key, safe_echo(raw), "1", reason, "Guided tour stop")


def ignored_link_message(query: Mapping[str, object]) -> str | None:
    """The warning for a link Streamlit ignored whole, from the mark the page's script left (``too_many=N``).

    >>> ignored_link_message({"too_many": "1234"})[:68]
    'This link had 1,234 parameters, more than the 1,000 Streamlit reads;'
    >>> ignored_link_message({"too_many": "<b>"}).startswith("This link was longer than Streamlit reads")
    True
    >>> ignored_link_message({"gpu": "b200"}) is None
    True
    """
    if TOO_MANY_KEY not in query:
        return None
    try:
        count = read_int(_text(query.get(TOO_MANY_KEY)), minimum=MAX_LINK_FIELDS + 1)
        what = f"had {count:,} parameters, more than the {MAX_LINK_FIELDS:,} Streamlit reads"
    except IntegerInputError:  # too long in characters, or a pasted mark: no count worth repeating
        what = (f"was longer than Streamlit reads (over {MAX_LINK_FIELDS:,} parameters or "
                f"{MAX_LINK_CHARS // 1024:,} Ki characters)")
    return f"This link {what}; none was used, so the page shows its defaults and the address bar was cleared."


def _text(raw: object) -> str:
    if isinstance(raw, list | tuple):
        raw = raw[-1] if raw else ""
    return "" if raw is None else raw if isinstance(raw, str) else str(raw)


#: The link key that picks it. Every page with more than one chart reads it; on each page it means
#: the same thing (which further chart), and no page uses it for anything else.
VIEW_KEY = "view"


#: ``auto`` (the default, never written to a link): no secondary chart, unless the page's values set
#: something only a secondary chart shows (a published measurement overlaid on All-reduce, a
#: direction or unit on the cliff), then that chart. ``none``: the main chart alone.
VIEW_AUTO, VIEW_NONE = "auto", "none"


@dataclass(frozen=True)
class PageViews:
    """The secondary charts of one page: their link values and labels (in page order), the chart
    keys each draws, and the parameters that, when not at their default, make ``auto`` show it."""

    labels: Mapping[str, str]
    charts: Mapping[str, tuple[str, ...]]
    needs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def view_for_chart(self, chart_key: str) -> str | None:
        """The view that draws ``chart_key`` (a tour step's chart), or None."""
        return next((view for view, keys in self.charts.items() if chart_key in keys), None)


HOME_VIEWS = PageViews({"reach": "Rate against reach"}, {"reach": ("reach-chart",)})


def view_spec(views: PageViews) -> ChoiceParam:
    """The page's ``view`` parameter: ``auto``, one of its secondary charts, or ``none``.

    Quiet: left out of a link while ``auto``, so every link written before it existed keeps its form.

    >>> view_spec(PageViews({"leash": "Rate against reach", "timeouts": "Timeouts"}, {})).choices
    ('auto', 'leash', 'timeouts', 'none')
    """
    return ChoiceParam(VIEW_KEY, VIEW_AUTO, "More charts", choices=(VIEW_AUTO, *views.labels, VIEW_NONE), quiet=True)


def resolve_view(view: str, views: PageViews, specs: list, values: Mapping[str, object], *,
                 wanted: str | None = None) -> str:
    """The secondary chart drawn: ``view`` itself unless it is ``auto``; then the first chart whose
    parameters are off their defaults (or ``wanted``, a chart the page needs for its own reasons,
    such as a pasted log), else ``none``.

    >>> from interconnect.inputs.params import ChoiceParam
    >>> views = PageViews({"time": "Time", "nodes": "Nodes"}, {}, {"time": ("coll",)})
    >>> specs = [ChoiceParam("coll", "all_reduce", "Collective", choices=("all_reduce", "all_gather"))]
    >>> resolve_view("auto", views, specs, {"coll": "all_reduce"})
    'none'
    >>> resolve_view("auto", views, specs, {"coll": "all_gather"})
    'time'
    >>> resolve_view("nodes", views, specs, {"coll": "all_gather"})
    'nodes'
    """
    if view != VIEW_AUTO:
        return view if view in views.labels or view == VIEW_NONE else VIEW_NONE
    defaults = {spec.key: spec.default for spec in specs}
    for name, keys in dict(views.needs).items():
        if any(key in defaults and values.get(key, defaults[key]) != defaults[key] for key in keys):
            return name
    return wanted if wanted in views.labels else VIEW_NONE


def home_specs() -> list:
    """The home page: only which further chart it draws under the layers picture."""
    return [view_spec(HOME_VIEWS)]


def script_url_path(script: str) -> str:
    """The URL path Streamlit gives a page script: ``pages/2_All_reduce.py`` -> ``All_reduce``.

    >>> script_url_path("pages/2_All_reduce.py"), script_url_path("pages/11_Explain.py")
    ('All_reduce', 'Explain')
    """
    stem = PurePosixPath(script).stem
    head, sep, tail = stem.partition("_")
    return tail if sep and head.isdigit() else stem


def link_to_page(script: str, specs: Sequence, values: Mapping[str, object]) -> tuple[str, list[ParamWarning]]:
    """A relative link that opens another page with ``values`` set, each written as that page reads it back.

    Every value goes through the target page's own reader (``specs``, the page's link parameters) and is written
    in its canonical form, so the link opens exactly what it says; a key the page does not read is left out and
    a value it would change is written as changed, each with a warning.

    >>> from interconnect.inputs.params import IntParam
    >>> link_to_page("pages/2_All_reduce.py", [IntParam("nodes", 4, "Nodes", minimum=1, maximum=64)],
    ...              {"nodes": "16", "log": "x"})[0]
    './All_reduce?nodes=16'
    """
    by_key = {spec.key: spec for spec in specs}
    query: dict[str, str] = {}
    warnings: list[ParamWarning] = []
    for key, raw in values.items():
        spec = by_key.get(key)
        if spec is None:
            warnings.append(ParamWarning(safe_echo(key), safe_echo(raw), "", "not a parameter of that page"))
            continue
        value, warning = read_value(spec, str(raw))
        if warning is not None:
            warnings.append(warning)
        query[key] = spec.to_text(value)
    path = f"./{script_url_path(script)}"
    return (f"{path}?{urlencode(query)}" if query else path), warnings
