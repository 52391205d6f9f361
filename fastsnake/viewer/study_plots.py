"""The numbers a study page's plots are drawn from, shared by the puzzle and tour pages.

Python computes what each plot shows; the page draws it (``webpage/assets/study.js`` with the shared
layout of ``plots.js``: text measured in the page's font and wrapped, so that no label is cut off or
drawn over another at any width). `Parts` is what a problem's page module (`study_puzzle`,
`study_tour`) hands the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The largest number of trials a per-trial plot draws a point for (the first ones, in its order).
MAX_POINTS = 2000


@dataclass
class Parts:
    """A problem's share of a study page: ``plots`` (id, title, the plot's numbers), ``tables``
    (`fastsnake.study.tables.Table`), ``notes`` and ``marks`` (lines above the page and the plots),
    ``how`` (the picks' measures: `fastsnake.study.picks.pickable`'s arguments plus ``trial`` and
    ``noun``), ``trials`` and ``algorithms`` (counted for the report's summary)."""

    plots: list
    tables: list
    notes: list
    how: dict
    trials: int
    algorithms: list
    marks: list = field(default_factory=list)


def per_trial_plot(plot_id: str, title: str, ylabel: str, series: dict, order: list, noun: str,
                   ordered_by: str) -> dict:
    """A plot of each series' value per trial (``series[name][trial]``; missing or <= 0 not drawn) on
    a log y axis, trials along x in `order` (the first `MAX_POINTS`), which `ordered_by` names."""
    shown = order[:MAX_POINTS]
    xlabel = f"{noun}s, in order of {ordered_by}" + (f" (the first {len(shown):,} of {len(order):,})"
                                                  if len(order) > len(shown) else "")
    return {"type": "per-trial", "id": plot_id, "title": title, "xlabel": xlabel, "ylabel": f"{ylabel} (log scale)",
            "names": list(series), "values": [[by.get(t) for t in shown] for by in series.values()]}


def ratio_plot(plot_id: str, title: str, entries: list[dict]) -> dict:
    """A plot of ratios with whiskers: each entry ``{"label", "ratio", "ci", "n"}`` a row, the ratio a
    dot on a log x axis, its 95 % interval a whisker, a line at 1 (no difference)."""
    return {"type": "ratios", "id": plot_id, "title": title, "axis": "ratio (log scale; 1: no difference)",
            "entries": [{"label": e["label"], "ratio": e["ratio"], "ci": e["ci"], "n": e["n"]} for e in entries]}
