"""Email: the shared support mailbox — inbox, sending, replies, folders."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.service import Service, ServiceState, tool
from skill2env.compoworld.types import EmailAddress, MessageId, Timestamp

Folder = Literal["inbox", "sent", "archive", "escalations", "spam"]
MAILBOX = "support@brewhaus.example"


class EmailMessage(BaseModel):
    message_id: MessageId
    sender: EmailAddress
    to: list[EmailAddress]
    cc: list[EmailAddress] = Field(default_factory=list)
    subject: str
    body: str
    folder: Folder
    read: bool = False
    in_reply_to: MessageId | None = None
    sent_at: Timestamp


class EmailSummary(BaseModel):
    message_id: MessageId
    sender: EmailAddress
    subject: str
    folder: Folder
    read: bool
    sent_at: Timestamp


def _summary(m: EmailMessage) -> EmailSummary:
    return EmailSummary(
        message_id=m.message_id, sender=m.sender, subject=m.subject, folder=m.folder, read=m.read, sent_at=m.sent_at
    )


class EmailState(ServiceState):
    address: EmailAddress = MAILBOX
    messages: dict[str, EmailMessage] = Field(default_factory=dict)


class Email(Service):
    name = "email"
    domain = "communication"
    description = f"The shared support mailbox ({MAILBOX}): read the inbox, send, reply, forward, file."
    State = EmailState
    state: EmailState

    @classmethod
    def fixture(cls, universe: Any) -> EmailState:
        state = EmailState(clock=universe.now)
        templates = {
            "shipped": (
                "Where is my order {order}?",
                "Hi, my order {order} shipped a while ago but has not arrived. "
                "Can you check where it is? Thanks, {name}",
            ),
            "delivered": (
                "Damaged item in {order}",
                "Hello, one item of order {order} arrived broken. I'd like a refund please. {name}",
            ),
            "pending": ("Cancel {order}", "Please cancel my order {order}, I ordered by mistake. {name}"),
            "paid": ("Change address for {order}", "Hi, could order {order} go to my office instead? {name}"),
        }
        for index, placed in enumerate(universe.orders[:8]):
            template = templates.get(placed.status)
            if template is None:
                continue
            person = universe.customer(placed.customer_id)
            subject, body = (t.format(order=placed.id, name=person.name.split()[0]) for t in template)
            message_id = state.next_id("MSG")
            state.messages[message_id] = EmailMessage(
                message_id=message_id,
                sender=person.email,
                to=[MAILBOX],
                subject=subject,
                body=body,
                folder="inbox",
                read=index % 3 == 0,
                sent_at=universe.now - timedelta(hours=2 + index),
            )
        return state

    def _message(self, message_id: str) -> EmailMessage:
        if message_id not in self.state.messages:
            raise NotFound(f"no message {message_id}")
        return self.state.messages[message_id]

    def _send(self, to: list[str], subject: str, body: str, cc: list[str], in_reply_to: str | None) -> EmailMessage:
        if not to or not subject.strip() or not body.strip():
            raise InvalidArgument("an email needs a recipient, a subject and a body")
        message = EmailMessage(
            message_id=self.state.next_id("MSG"),
            sender=self.state.address,
            to=to,
            cc=cc,
            subject=subject.strip(),
            body=body.strip(),
            folder="sent",
            read=True,
            in_reply_to=in_reply_to,
            sent_at=self.now,
        )
        self.state.messages[message.message_id] = message
        return message

    @tool(reads=("messages",), writes=("messages",), intent="email {to} with the subject “{subject}”: {body}")
    def send_email(
        self, to: EmailAddress, subject: str, body: str, cc: list[EmailAddress] | None = None
    ) -> EmailMessage:
        """Send an email from the support mailbox.

        Args:
            to: The recipient.
            subject: The subject line.
            body: The text.
            cc: Copied recipients.

        Raises:
            InvalidArgument: Empty subject or body.
        """
        return self._send([to], subject, body, cc or [], None)

    @tool(reads=("messages",), intent="find the emails about “{query}”")
    def search_mail(self, query: str, folder: Folder | None = None) -> list[EmailSummary]:
        """Find messages whose sender, subject or body contains the query, newest first.

        Args:
            query: Text to find (case-insensitive).
            folder: Only this folder.

        Raises:
            InvalidArgument: The query is empty.
        """
        text = query.strip().lower()
        if not text:
            raise InvalidArgument("the query is empty")
        found = [
            m
            for m in self.state.messages.values()
            if text in f"{m.sender} {m.subject} {m.body}".lower() and folder in (None, m.folder)
        ]
        return [_summary(m) for m in sorted(found, key=lambda m: m.sent_at, reverse=True)]

    @tool(reads=("messages",), intent="list the unread emails in the inbox")
    def list_unread(self) -> list[EmailSummary]:
        """List unread inbox messages, oldest first."""
        unread = [m for m in self.state.messages.values() if m.folder == "inbox" and not m.read]
        return [_summary(m) for m in sorted(unread, key=lambda m: m.sent_at)]

    @tool(reads=("messages",), writes=("messages",), intent="read {message_id}", reports=("sender", "subject"))
    def read_email(self, message_id: MessageId) -> EmailMessage:
        """Open a message (marks it read).

        Args:
            message_id: The message.

        Raises:
            NotFound: No such message.
        """
        message = self._message(message_id)
        if not message.read:
            message = message.model_copy(update={"read": True})
            self.state.messages[message_id] = message
        return message

    @tool(reads=("messages",), writes=("messages",), intent="reply to {message_id}: {body}")
    def reply_to_email(self, message_id: MessageId, body: str) -> EmailMessage:
        """Reply to a received message's sender (subject prefixed with "Re: "); the original is marked read.

        Args:
            message_id: The message replied to.
            body: The reply.

        Raises:
            NotFound: No such message.
            Conflict: It is a message we sent.
            InvalidArgument: Empty body.
        """
        original = self._message(message_id)
        if original.sender == self.state.address:
            raise Conflict(f"{message_id} was sent from this mailbox; reply to a received message")
        subject = original.subject if original.subject.lower().startswith("re:") else f"Re: {original.subject}"
        reply = self._send([original.sender], subject, body, [], message_id)
        self.state.messages[message_id] = original.model_copy(update={"read": True})
        return reply

    @tool(reads=("messages",), writes=("messages",), intent="forward {message_id} to {to} with the note “{note}”")
    def forward_email(self, message_id: MessageId, to: EmailAddress, note: str) -> EmailMessage:
        """Forward a message to someone with a note on top.

        Args:
            message_id: The message.
            to: Who to forward it to.
            note: A line above the forwarded text.

        Raises:
            NotFound: No such message.
        """
        original = self._message(message_id)
        body = f"{note.strip()}\n\n---------- Forwarded message ----------\nFrom: {original.sender}\n{original.body}"
        return self._send([to], f"Fwd: {original.subject}", body, [], message_id)

    @tool(reads=("messages",), writes=("messages",), intent="file {message_id} under {folder}")
    def move_to_folder(self, message_id: MessageId, folder: Folder) -> EmailSummary:
        """Move a message to a folder.

        Args:
            message_id: The message.
            folder: Where to file it.

        Raises:
            NotFound: No such message.
            Conflict: It is in that folder already.
        """
        message = self._message(message_id)
        if message.folder == folder:
            raise Conflict(f"{message_id} is in {folder} already")
        moved = message.model_copy(update={"folder": folder})
        self.state.messages[message_id] = moved
        return _summary(moved)
