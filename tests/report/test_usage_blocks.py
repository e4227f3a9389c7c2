"""``usage --breakdown`` and ``usage --by block``: each checked against sums written here,
from the records the test wrote (never from report/stats.py), and tables as wide as they are
told, with whole provider/model names, no empty rows and figures written as elsewhere."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from piexport.cli import cli
from piexport.report.usage import block_starts
from piexport.text.columns import cells

from tests.support.sessions import HEADER

H = 3_600_000


def _answer(eid: str, parent: str | None, when: str, model: str, tokens: int, cost: float) -> Any:
    provider, name = model.split("/", 1)
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": when,
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": "ok"}],
            "provider": provider,
            "model": name,
            "usage": {
                "input": tokens,
                "output": 1,
                "cacheRead": 0,
                "cacheWrite": 0,
                "cost": {"total": cost},
            },
        },
    }


def _ask(eid: str, parent: str | None, when: str) -> Any:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": when,
        "message": {"role": "user", "content": "go"},
    }


# (session, time, model, input tokens, cost): the turns the tests write, one answer each
TURNS = [
    ("a", "2025-03-01T08:10:00.000Z", "anthropic/claude-opus-4-5", 1000, 0.50),
    ("a", "2025-03-01T09:59:00.000Z", "openai/gpt-5", 200, 0.02),
    ("a", "2025-03-01T12:30:00.000Z", "anthropic/claude-opus-4-5", 300, 0.10),  # 08:00 block
    ("b", "2025-03-01T13:05:00.000Z", "anthropic/claude-opus-4-5", 50, 0.01),  # a new block
    ("b", "2025-03-01T19:00:00.000Z", "openai/gpt-5", 70, 0.03),  # gap of 5 h 55 min
    ("b", "2025-03-02T01:00:00.000Z", "openai/gpt-5", 90, 0.04),  # 6 h later again
    ("c", "2025-04-10T23:20:00.000Z", "anthropic/claude-opus-4-5", 10, 0.001),
]


def _write(folder: Path) -> None:
    by_session: dict[str, list[Any]] = {}
    for n, (sid, when, model, tokens, cost) in enumerate(TURNS):
        records = by_session.setdefault(sid, [])
        parent = records[-1]["id"] if records else None
        records.append(_ask(f"u{n}", parent, when))
        records.append(_answer(f"a{n}", f"u{n}", when, model, tokens, cost))
    for sid, records in by_session.items():
        header = {**HEADER, "id": f"0195a000-0000-7000-8000-00000000000{sid}"}
        lines = [orjson.dumps(r) for r in [header, *records]]
        (folder / f"{sid}.jsonl").write_bytes(b"\n".join(lines) + b"\n")


def _json(folder: Path, *args: str) -> Any:
    result = CliRunner().invoke(cli, ["usage", str(folder), "--format", "json", *args])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def _ms(iso: str) -> int:
    from datetime import datetime

    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def test_blocks_follow_ccusage_rules() -> None:
    t0 = _ms("2025-03-01T08:10:00.000Z")
    assert block_starts([]) == []
    # one block: from 08:00, everything before 13:00 with no gap over 5 h
    assert block_starts([t0, t0 + H, t0 + 4 * H]) == [t0 - 10 * 60_000]
    # past the block's 5 hours: a new block at that entry's hour
    assert block_starts([t0, t0 + 3 * H, t0 + 5 * H]) == [t0 - 600_000, t0 - 600_000 + 5 * H]
    # a gap of more than 5 h starts one even inside what would be the same hours
    assert len(block_starts([t0, t0 + 5 * H + 60_000])) == 2
    # the order entries come in does not matter
    assert block_starts([t0 + 4 * H, t0]) == block_starts([t0, t0 + 4 * H])


def test_usage_by_block_adds_up_as_ccusage_counts(tmp_path: Path) -> None:
    _write(tmp_path)
    got = _json(tmp_path, "--by", "block")
    # written out by hand from TURNS: 08:00-13:00 holds the first three (12:30 is inside),
    # 13:05 starts 13:00; 19:00 is 5 h 55 min later, so 19:00; 01:00 is 6 h later, so 01:00
    expected = {
        "2025-03-01 08:00": (1000 + 200 + 300, 0.50 + 0.02 + 0.10, 6),
        "2025-03-01 13:00": (50, 0.01, 2),
        "2025-03-01 19:00": (70, 0.03, 2),
        "2025-03-02 01:00": (90, 0.04, 2),
        "2025-04-10 23:00": (10, 0.001, 2),
    }
    rows = {r["key"]: r for r in got["rows"]}
    assert list(rows) == list(expected)
    for key, (tokens, cost, messages) in expected.items():
        assert rows[key]["tokens"]["input"] == tokens, key
        assert rows[key]["cost"] == pytest.approx(cost), key
        assert rows[key]["messages"] == messages, key
    first = rows["2025-03-01 08:00"]
    assert first["start"] == "2025-03-01T08:00:00.000Z"
    assert first["end"] == "2025-03-01T13:00:00.000Z"
    assert first["lastActivity"] == "2025-03-01T12:30:00.000Z"
    # the same total as --by day: one set of figures, grouped otherwise
    assert got["total"] == _json(tmp_path, "--by", "day")["total"]


@pytest.mark.parametrize("by", ["day", "month", "block"])
def test_breakdown_rows_hold_each_model_and_add_up(tmp_path: Path, by: str) -> None:
    _write(tmp_path)
    got = _json(tmp_path, "--by", by, "--breakdown")
    # by hand: each period's turns per model
    period = {"day": lambda t: t[:10], "month": lambda t: t[:7]}.get(by)
    sums: dict[tuple[str, str], float] = {}
    for _sid, when, model, _tokens, cost in TURNS:
        if period is not None:
            key = period(when)
        else:  # the blocks of the test above
            key = next(
                k
                for k in (
                    "2025-04-10 23:00",
                    "2025-03-02 01:00",
                    "2025-03-01 19:00",
                    "2025-03-01 13:00",
                    "2025-03-01 08:00",
                )
                if when.replace("T", " ")[:16] >= k
            )
        sums[key, model] = sums.get((key, model), 0) + cost
    seen = {}
    for row in got["rows"]:
        assert row["cost"] == pytest.approx(sum(m["cost"] or 0 for m in row["models"]))
        assert row["messages"] == sum(m["messages"] for m in row["models"])
        for m in row["models"]:  # a request counts under the model that was working:
            if m["cost"] is not None:  # its row may hold no answer, so no cost
                seen[row["key"], m["key"]] = m["cost"]
    assert seen == pytest.approx(sums)


def test_breakdown_in_the_table_and_csv(tmp_path: Path) -> None:
    _write(tmp_path)
    runner = CliRunner()
    table = runner.invoke(cli, ["usage", str(tmp_path), "--breakdown"], env={"COLUMNS": "120"})
    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    day = lines.index(next(line for line in lines if line.startswith("2025-03-01")))
    assert lines[day + 1].startswith("  anthropic/claude-opus-4-5 ")
    assert lines[day + 2].startswith("  openai/gpt-5 ")
    rows = runner.invoke(cli, ["usage", str(tmp_path), "--breakdown", "--format", "csv"]).stdout
    assert rows.splitlines()[0].startswith("key,model,sessions,")
    assert "\n2025-03-01,,2,10," in rows and "\n2025-03-01,openai/gpt-5,2,3," in rows
    bad = runner.invoke(cli, ["usage", str(tmp_path), "--by", "model", "--breakdown"])
    assert bad.exit_code == 2 and "--breakdown" in bad.stderr and "Traceback" not in bad.output


def _model_change(eid: str, parent: str | None, when: str, model: str) -> Any:
    provider, name = model.split("/", 1)
    return {
        "type": "model_change",
        "id": eid,
        "parentId": parent,
        "timestamp": when,
        "provider": provider,
        "modelId": name,
    }


def test_a_wide_terminal_shows_whole_names_and_no_empty_rows(tmp_path: Path) -> None:
    _write(tmp_path)
    # a model chosen and left before any message: a group with no message, no session
    records = [
        _model_change("m1", None, "2025-03-05T10:00:00.000Z", "google/gemini-never-used"),
        _model_change("m2", "m1", "2025-03-05T10:00:01.000Z", "anthropic/claude-opus-4-5"),
        _ask("u1", "m2", "2025-03-05T10:00:02.000Z"),
        _answer("a1", "u1", "2025-03-05T10:00:03.000Z", "anthropic/claude-opus-4-5", 5, 0.0),
    ]
    lines = [orjson.dumps(r) for r in [HEADER, *records]]
    (tmp_path / "d.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    got = _json(tmp_path, "--by", "model")
    assert "google/gemini-never-used" not in [r["key"] for r in got["rows"]]
    result = CliRunner().invoke(
        cli, ["usage", str(tmp_path), "--by", "model"], env={"COLUMNS": "160"}
    )
    table = result.stdout.split("\n")
    names = [line.split(" ")[0] for line in table[2:4]]
    assert names == ["anthropic/claude-opus-4-5", "openai/gpt-5"]
    assert "gemini-never-used" not in result.stdout
    assert all(cells(line) <= 160 for line in table)
    for line in table[2:4]:  # counts and tokens as the pages write them
        assert re.search(r" \d[\d,]* +\d[\d,]* ", line)
    narrow = CliRunner().invoke(
        cli, ["usage", str(tmp_path), "--by", "model"], env={"COLUMNS": "60"}
    )
    first = narrow.stdout.split("\n")[2]
    assert first.startswith("anthropic/") and "…" in first  # cut at its end, provider kept


def test_billions_read_as_billions() -> None:
    from piexport.text.numbers import count, tokens

    assert tokens(4_092_570_000) == "4.09B"
    assert tokens(4_092_570) == "4.09M"
    assert count(1234567) == "1,234,567"
