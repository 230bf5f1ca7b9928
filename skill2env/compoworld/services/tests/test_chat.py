"""chat: channels, posts, members, direct messages, pins."""

from __future__ import annotations

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from skill2env.compoworld.services.chat import BOT, Chat
from skill2env.compoworld.services.tests.support import fresh, raises


def test_post_and_read() -> None:
    chat, _ = fresh(Chat)
    posted = chat.call("post_message", {"channel": "ops", "text": "Deploy at 14:00"})
    assert posted["author"] == BOT
    assert chat.call("read_channel", {"channel": "ops", "limit": 1}) == [posted]
    with raises(NotFound, "channels:"):
        chat.call("post_message", {"channel": "random", "text": "hi"})
    with raises(InvalidArgument):
        chat.call("post_message", {"channel": "ops", "text": "   "})


def test_channels_and_members() -> None:
    chat, universe = fresh(Chat)
    people = [s.email for s in universe.staff[:2]]
    info = chat.call("create_channel", {"name": "incident-1001", "topic": "checkout latency", "members": people})
    assert info["members"] == 3
    with raises(Conflict):
        chat.call("create_channel", {"name": "incident-1001", "topic": "x", "members": []})
    with raises(NotFound, "no chat account"):
        chat.call("create_channel", {"name": "guests", "topic": "x", "members": ["guest@example.com"]})
    outsider = next(e for e in chat.state.people if e not in chat.state.channels["ops"].members)
    assert chat.call("invite_to_channel", {"channel": "ops", "email": outsider})["members"] == len(
        chat.state.channels["ops"].members
    )
    with raises(Conflict):
        chat.call("invite_to_channel", {"channel": "ops", "email": outsider})
    assert {c["name"] for c in chat.call("list_channels", {})} >= {"support", "ops", "incident-1001"}


def test_direct_messages_need_an_account() -> None:
    chat, universe = fresh(Chat)
    sent = chat.call("send_direct_message", {"to": universe.staff[0].email, "text": "You are paged"})
    assert chat.state.directs[-1].message_id == sent["message_id"]
    with raises(NotFound):
        chat.call("send_direct_message", {"to": "stranger@example.com", "text": "hi"})


def test_pins_stay_in_their_channel() -> None:
    chat, _ = fresh(Chat)
    posted = chat.call("post_message", {"channel": "support", "text": "Refund limit is 50 USD"})
    assert chat.call("pin_message", {"channel": "support", "message_id": posted["message_id"]})["pinned"]
    with raises(Conflict):
        chat.call("pin_message", {"channel": "support", "message_id": posted["message_id"]})
    with raises(PermissionDenied):
        chat.call("pin_message", {"channel": "ops", "message_id": posted["message_id"]})
    with raises(NotFound):
        chat.call("pin_message", {"channel": "ops", "message_id": "CHM-9999"})
