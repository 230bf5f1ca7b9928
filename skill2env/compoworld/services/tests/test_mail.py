"""email: the inbox, sending, replies, forwards and folders."""

from __future__ import annotations

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.services.mail import MAILBOX, Email
from skill2env.compoworld.services.tests.support import fresh, raises


def test_send_goes_to_sent_from_the_mailbox() -> None:
    email, _ = fresh(Email)
    sent = email.call("send_email", {"to": "ana.silva@example.com", "subject": "Your refund", "body": "Done."})
    assert sent["sender"] == MAILBOX and sent["folder"] == "sent" and sent["to"] == ["ana.silva@example.com"]
    with raises(InvalidArgument, "subject"):
        email.call("send_email", {"to": "ana.silva@example.com", "subject": "", "body": "x"})
    with raises(InvalidArgument, "to"):
        email.call("send_email", {"to": "not an address", "subject": "s", "body": "b"})


def test_reading_marks_read_and_unread_list_shrinks() -> None:
    email, _ = fresh(Email)
    unread = email.call("list_unread", {})
    assert unread and all(not m["read"] for m in unread)
    email.call("read_email", {"message_id": unread[0]["message_id"]})
    assert len(email.call("list_unread", {})) == len(unread) - 1
    with raises(NotFound):
        email.call("read_email", {"message_id": "MSG-9999"})


def test_reply_threads_to_the_sender_and_refuses_our_own_mail() -> None:
    email, _ = fresh(Email)
    received = next(iter(email.state.messages.values()))
    reply = email.call("reply_to_email", {"message_id": received.message_id, "body": "Looking into it."})
    assert reply["to"] == [received.sender] and reply["subject"] == f"Re: {received.subject}"
    assert reply["in_reply_to"] == received.message_id and email.state.messages[received.message_id].read
    with raises(Conflict, "sent from this mailbox"):
        email.call("reply_to_email", {"message_id": reply["message_id"], "body": "again"})


def test_search_forward_and_file() -> None:
    email, universe = fresh(Email)
    received = next(iter(email.state.messages.values()))
    order = next(word for word in received.subject.split() if word.startswith("ORD-")).rstrip("?")
    assert received.message_id in [m["message_id"] for m in email.call("search_mail", {"query": order.lower()})]
    forwarded = email.call(
        "forward_email", {"message_id": received.message_id, "to": universe.staff[0].email, "note": "Can you check?"}
    )
    assert forwarded["subject"].startswith("Fwd: ") and received.body in forwarded["body"]
    moved = email.call("move_to_folder", {"message_id": received.message_id, "folder": "escalations"})
    assert moved["folder"] == "escalations"
    with raises(Conflict):
        email.call("move_to_folder", {"message_id": received.message_id, "folder": "escalations"})
