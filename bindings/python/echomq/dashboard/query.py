"""Sorting, searching and paging of a sample's lane rows, on the server, so
a queue of 10,000 lanes sends the browser one page of them."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping

SORT_KEYS = ("lane", "depth", "active", "limit", "weight", "rate", "cap", "paused", "served", "served_per_s",
             "share", "share_in_tenant", "fair_share", "tenant", "wait_p50", "wait_p99", "window_share", "window_fair_share",
             "cost_v", "delayed")
PAGE_MAX = 500


class BadQuery(ValueError):
    """A query parameter out of its range (answered with 400)."""


def _int(params: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    text = params.get(name)
    if text is None or text == "":
        return default
    try:
        value = int(text)
    except ValueError:
        raise BadQuery(f"{name} must be a whole number, got {text!r}") from None
    if not low <= value <= high:
        raise BadQuery(f"{name} must be in {low}..{high}, got {value}")
    return value


def page_of(params: Mapping[str, str], default_limit: int = 50) -> Dict[str, int]:
    return {"offset": _int(params, "offset", 0, 0, 10**9), "limit": _int(params, "limit", default_limit, 1, PAGE_MAX)}


def _key(sort: str):  # type: ignore[no-untyped-def]
    def key(row: Dict[str, Any]):  # type: ignore[no-untyped-def]
        if sort == "lane":
            return (0, row["lane"].encode("utf-8"))
        value = row.get(sort)
        if sort == "rate" and value is not None:
            value = value["jobs"] / value["per"]
        # Missing values (no limit, no rate yet) sort after every number.
        return (1, 0) if value is None else (0, value)
    return key


def lanes_page(rows: List[Dict[str, Any]], params: Mapping[str, str]) -> Dict[str, Any]:
    """{total, matched, offset, limit, sort, order, lanes} for the query."""
    sort = params.get("sort") or "depth"
    if sort not in SORT_KEYS:
        raise BadQuery(f"sort must be one of {', '.join(SORT_KEYS)}, got {sort!r}")
    order = params.get("order") or ("asc" if sort == "lane" else "desc")
    if order not in ("asc", "desc"):
        raise BadQuery(f"order must be asc or desc, got {order!r}")
    search = params.get("q") or ""
    if len(search) > 256:
        raise BadQuery("q must be at most 256 characters")
    page = page_of(params)
    needle = search.casefold()
    matched = [r for r in rows if needle in r["lane"].casefold()] if needle else list(rows)
    with_value = [r for r in matched if sort == "lane" or r.get(sort) is not None]
    without = [r for r in matched if not (sort == "lane" or r.get(sort) is not None)]
    if sort != "lane":
        # Equal figures keep name order (the sort is stable, also reversed).
        with_value.sort(key=_key("lane"))
        without.sort(key=_key("lane"))
    with_value.sort(key=_key(sort), reverse=(order == "desc"))
    ordered = with_value + without  # rows without the figure always last
    start = page["offset"]
    return {"total": len(rows), "matched": len(matched), "offset": start, "limit": page["limit"],
            "sort": sort, "order": order, "q": search, "lanes": ordered[start:start + page["limit"]]}
