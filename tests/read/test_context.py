"""build_session_context(): every rule of docs/format.md#what-the-model-saw."""

from __future__ import annotations

from piexport import build_session_context, load_session

from tests.support.sessions import MakeSession, msg, ts

MS0 = 1735725600000  # 2025-01-01T10:00:00.000Z


def entry(eid: str, parent: str | None, second: int, etype: str, **extra: object) -> dict:
    return {"type": etype, "id": eid, "parentId": parent, "timestamp": ts(second), **extra}


def assistant(
    eid: str,
    parent: str,
    second: int,
    text: str,
    provider: str = "anthropic",
    model: str = "claude",
) -> dict:
    return msg(
        eid,
        parent,
        "assistant",
        [{"type": "text", "text": text}],
        second,
        provider=provider,
        model=model,
    )


def test_plain_path_in_order(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                msg("u1", None, "user", "hi", 1),
                assistant("a1", "u1", 2, "hello"),
                msg("u2", "a1", "user", "more", 3),
            ]
        )
    )
    ctx = build_session_context(s)
    assert [m["role"] for m in ctx["messages"]] == ["user", "assistant", "user"]
    assert ctx["messages"][1] is s.by_id["a1"].raw["message"]  # verbatim, not a copy
    assert ctx["thinkingLevel"] == "off"
    assert ctx["model"] == {"provider": "anthropic", "modelId": "claude"}


def test_other_branch_does_not_count(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                msg("u1", None, "user", "hi", 1),
                entry("t1", "u1", 2, "thinking_level_change", thinkingLevel="high"),
                entry("m1", "t1", 3, "model_change", provider="openai", modelId="gpt"),
                msg("u2", "u1", "user", "other", 4),
            ]
        )
    )
    ctx = build_session_context(s)
    assert ctx == {
        "messages": [{"role": "user", "content": "hi"}, {"role": "user", "content": "other"}],
        "thinkingLevel": "off",
        "model": None,
    }
    other = build_session_context(s, "m1")
    assert other["thinkingLevel"] == "high"
    assert other["model"] == {"provider": "openai", "modelId": "gpt"}


def test_model_follows_assistant_and_model_change_in_path_order(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                msg("u1", None, "user", "hi", 1),
                assistant("a1", "u1", 2, "x", "anthropic", "claude"),
                entry("m1", "a1", 3, "model_change", provider="openai", modelId="gpt-5"),
            ]
        )
    )
    assert build_session_context(s)["model"] == {"provider": "openai", "modelId": "gpt-5"}
    s2 = load_session(
        make_session(
            [
                entry("m1", None, 1, "model_change", provider="openai", modelId="gpt-5"),
                msg("u1", "m1", "user", "hi", 2),
                assistant("a1", "u1", 3, "x", "google", "gemini"),
            ]
        )
    )
    assert build_session_context(s2)["model"] == {"provider": "google", "modelId": "gemini"}


def test_assistant_without_provider_gives_model_without_those_keys(
    make_session: MakeSession,
) -> None:
    s = load_session(make_session([msg("a1", None, "assistant", [], 1)]))
    assert build_session_context(s)["model"] == {}


def test_custom_message_branch_summary_and_skipped_types(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                msg("u1", None, "user", "hi", 1),
                entry(
                    "c1",
                    "u1",
                    2,
                    "custom_message",
                    customType="ext",
                    content="hidden",
                    display=False,
                ),
                entry(
                    "c2",
                    "c1",
                    3,
                    "custom_message",
                    customType="ext",
                    content=[{"type": "text", "text": "x"}],
                    display=True,
                    details={"k": 1},
                ),
                entry("b1", "c2", 4, "branch_summary", fromId="u1", summary="went elsewhere"),
                entry("b2", "b1", 5, "branch_summary", fromId="u1", summary=""),
                entry("x1", "b2", 6, "custom", customType="state", data={}),
                entry("l1", "x1", 7, "label", targetId="u1", label="a"),
                entry("n1", "l1", 8, "session_info", name="n"),
                entry("q1", "n1", 9, "checkpoint"),
            ]
        )
    )
    msgs = build_session_context(s)["messages"]
    assert msgs[1] == {
        "role": "custom",
        "customType": "ext",
        "content": "hidden",
        "display": False,
        "timestamp": MS0 + 2000,
    }
    assert msgs[2]["details"] == {"k": 1} and msgs[2]["display"] is True
    assert msgs[3] == {
        "role": "branchSummary",
        "summary": "went elsewhere",
        "fromId": "u1",
        "timestamp": MS0 + 4000,
    }
    assert len(msgs) == 4


def compaction(
    eid: str, parent: str, second: int, first_kept: str | None, summary: str = "sum"
) -> dict:
    extra = {} if first_kept is None else {"firstKeptEntryId": first_kept}
    return entry(eid, parent, second, "compaction", summary=summary, tokensBefore=1234, **extra)


def test_compaction_keeps_from_first_kept(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                msg("u1", None, "user", "one", 1),
                msg("u2", "u1", "user", "two", 2),
                msg("u3", "u2", "user", "three", 3),
                compaction("c1", "u3", 4, "u2"),
                msg("u4", "c1", "user", "four", 5),
            ]
        )
    )
    msgs = build_session_context(s)["messages"]
    assert msgs[0] == {
        "role": "compactionSummary",
        "summary": "sum",
        "tokensBefore": 1234,
        "timestamp": MS0 + 4000,
    }
    assert [m.get("content") for m in msgs[1:]] == ["two", "three", "four"]


def test_last_compaction_on_path_counts(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                msg("u1", None, "user", "one", 1),
                compaction("c1", "u1", 2, "u1", "first"),
                msg("u2", "c1", "user", "two", 3),
                compaction("c2", "u2", 4, "u2", "second"),
                msg("u3", "c2", "user", "three", 5),
            ]
        )
    )
    msgs = build_session_context(s)["messages"]
    assert msgs[0]["summary"] == "second"
    assert [m.get("content") for m in msgs[1:]] == ["two", "three"]


def test_first_kept_not_on_path_keeps_nothing_before(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                msg("u1", None, "user", "one", 1),
                msg("u2", "u1", "user", "two", 2),
                compaction("c1", "u2", 3, "elsewhere"),
                msg("u3", "c1", "user", "three", 4),
            ]
        )
    )
    msgs = build_session_context(s)["messages"]
    assert [m["role"] for m in msgs] == ["compactionSummary", "user"]


def test_compaction_as_leaf(make_session: MakeSession) -> None:
    s = load_session(
        make_session([msg("u1", None, "user", "one", 1), compaction("c1", "u1", 2, "u1")])
    )
    assert [m["role"] for m in build_session_context(s)["messages"]] == [
        "compactionSummary",
        "user",
    ]


def test_unknown_leaf_falls_back_to_last_entry(make_session: MakeSession) -> None:
    s = load_session(
        make_session([msg("u1", None, "user", "one", 1), msg("u2", "u1", "user", "two", 2)])
    )
    assert build_session_context(s, "nope") == build_session_context(s)


def test_unreadable_timestamp_becomes_null(make_session: MakeSession) -> None:
    s = load_session(
        make_session(
            [
                {
                    "type": "branch_summary",
                    "id": "b",
                    "parentId": None,
                    "timestamp": "soon",
                    "fromId": "x",
                    "summary": "s",
                }
            ]
        )
    )
    assert build_session_context(s)["messages"][0]["timestamp"] is None


def test_thinking_level_without_value_is_left_out(make_session: MakeSession) -> None:
    s = load_session(make_session([entry("t", None, 1, "thinking_level_change")]))
    assert "thinkingLevel" not in build_session_context(s)
