"""Chat: team channels and direct messages (the notification side of the company)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pydantic import BaseModel, Field

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from skill2env.compoworld.service import Service, ServiceState, tool
from skill2env.compoworld.types import ChannelName, ChatMessageId, EmailAddress, Timestamp

BOT = "ops-bot@brewhaus.example"
MAX_TEXT = 4000


class ChatMessage(BaseModel):
    message_id: ChatMessageId
    author: EmailAddress
    text: str
    at: Timestamp
    pinned: bool = False


class Channel(BaseModel):
    name: ChannelName
    topic: str = ""
    members: list[EmailAddress] = Field(default_factory=list)
    messages: list[ChatMessage] = Field(default_factory=list)


class ChannelInfo(BaseModel):
    name: ChannelName
    topic: str
    members: int
    messages: int


class DirectMessage(BaseModel):
    message_id: ChatMessageId
    to: EmailAddress
    text: str
    at: Timestamp


class ChatState(ServiceState):
    channels: dict[str, Channel] = Field(default_factory=dict)
    directs: list[DirectMessage] = Field(default_factory=list)
    people: list[EmailAddress] = Field(default_factory=list)
    """Everyone with a chat account."""


class Chat(Service):
    name = "chat"
    domain = "communication"
    description = "Team chat: channels (#support, #ops, #fulfilment, …) and direct messages, posted as ops-bot."
    State = ChatState
    state: ChatState

    @classmethod
    def fixture(cls, universe: Any) -> ChatState:
        state = ChatState(clock=universe.now, people=[BOT, *(s.email for s in universe.staff)])
        plan = {
            "support": ("Customer issues and escalations", ("support", "finance")),
            "ops": ("Incidents and on-call", ("platform",)),
            "fulfilment": ("Warehouse and shipping", ("fulfilment", "support")),
            "general": ("Everything else", ("support", "fulfilment", "finance", "platform")),
        }
        for name, (topic, teams) in plan.items():
            members = [BOT, *(s.email for s in universe.staff if s.team in teams)]
            state.channels[name] = Channel(name=name, topic=topic, members=members)
        first = universe.staff[0]
        state.channels["support"].messages.append(
            ChatMessage(
                message_id=state.next_id("CHM"),
                author=first.email,
                text="Morning! Inbox has a few damaged-item reports.",
                at=universe.now - timedelta(minutes=30),
            )
        )
        return state

    def _channel(self, channel: str) -> Channel:
        if channel not in self.state.channels:
            raise NotFound(f"no channel #{channel}; channels: {', '.join(sorted(self.state.channels))}")
        return self.state.channels[channel]

    @staticmethod
    def _text(text: str) -> str:
        if not text.strip() or len(text) > MAX_TEXT:
            raise InvalidArgument("a message has 1 to 4000 characters")
        return text.strip()

    @tool(reads=("channels",), intent="list the chat channels")
    def list_channels(self) -> list[ChannelInfo]:
        """List channels with their topic and sizes."""
        return [
            ChannelInfo(name=c.name, topic=c.topic, members=len(c.members), messages=len(c.messages))
            for c in self.state.channels.values()
        ]

    @tool(reads=("channels",), intent="show me the latest messages in {channel}")
    def read_channel(self, channel: ChannelName, limit: int = 20) -> list[ChatMessage]:
        """Read a channel's latest messages, oldest first.

        Args:
            channel: The channel.
            limit: How many (1 to 100).

        Raises:
            NotFound: No such channel.
        """
        return self._channel(channel).messages[-max(1, min(limit, 100)) :]

    @tool(reads=("channels",), writes=("channels",), intent="post in {channel}: “{text}”")
    def post_message(self, channel: ChannelName, text: str) -> ChatMessage:
        """Post a message to a channel as ops-bot.

        Args:
            channel: The channel.
            text: The message (1 to 4000 characters).

        Raises:
            NotFound: No such channel.
            InvalidArgument: Empty or too long.
        """
        target = self._channel(channel)
        message = ChatMessage(message_id=self.state.next_id("CHM"), author=BOT, text=self._text(text), at=self.now)
        self.state.channels[channel] = target.model_copy(update={"messages": [*target.messages, message]})
        return message

    @tool(
        reads=("channels", "people"),
        writes=("channels",),
        intent="open a channel {name} about “{topic}” with {members}",
    )
    def create_channel(self, name: ChannelName, topic: str, members: list[EmailAddress]) -> ChannelInfo:
        """Create a channel (ops-bot joins it too).

        Args:
            name: The channel's name; must be new.
            topic: What it is for.
            members: Who joins; each must have a chat account.

        Raises:
            Conflict: The channel exists.
            NotFound: A member has no chat account.
        """
        if name in self.state.channels:
            raise Conflict(f"#{name} exists already")
        strangers = sorted(set(members) - set(self.state.people))
        if strangers:
            raise NotFound(f"no chat account for {strangers}")
        channel = Channel(name=name, topic=topic.strip(), members=list(dict.fromkeys([BOT, *members])))
        self.state.channels[name] = channel
        return ChannelInfo(name=name, topic=channel.topic, members=len(channel.members), messages=0)

    @tool(reads=("channels", "people"), writes=("channels",), intent="add {email} to {channel}")
    def invite_to_channel(self, channel: ChannelName, email: EmailAddress) -> ChannelInfo:
        """Add someone with a chat account to a channel.

        Args:
            channel: The channel.
            email: Who to add.

        Raises:
            NotFound: No such channel, or no chat account for them.
            Conflict: They are a member already.
        """
        target = self._channel(channel)
        if email not in self.state.people:
            raise NotFound(f"no chat account for {email}")
        if email in target.members:
            raise Conflict(f"{email} is in #{channel} already")
        updated = target.model_copy(update={"members": [*target.members, email]})
        self.state.channels[channel] = updated
        return ChannelInfo(
            name=channel, topic=updated.topic, members=len(updated.members), messages=len(updated.messages)
        )

    @tool(reads=("people",), writes=("directs",), intent="message {to} directly: “{text}”")
    def send_direct_message(self, to: EmailAddress, text: str) -> DirectMessage:
        """Send someone a direct message as ops-bot.

        Args:
            to: The recipient; must have a chat account.
            text: The message.

        Raises:
            NotFound: No chat account for them.
            InvalidArgument: Empty or too long.
        """
        if to not in self.state.people:
            raise NotFound(f"no chat account for {to}")
        message = DirectMessage(message_id=self.state.next_id("CHM"), to=to, text=self._text(text), at=self.now)
        self.state.directs.append(message)
        return message

    @tool(reads=("channels",), writes=("channels",), intent="pin {message_id} in {channel}")
    def pin_message(self, channel: ChannelName, message_id: ChatMessageId) -> ChatMessage:
        """Pin a channel message so everyone sees it.

        Args:
            channel: The channel.
            message_id: The message.

        Raises:
            NotFound: No such channel or message in it.
            Conflict: It is pinned already.
            PermissionDenied: Only messages of the channel can be pinned there.
        """
        target = self._channel(channel)
        found = next((m for m in target.messages if m.message_id == message_id), None)
        if found is None:
            elsewhere = any(any(m.message_id == message_id for m in c.messages) for c in self.state.channels.values())
            if elsewhere:
                raise PermissionDenied(f"{message_id} belongs to another channel")
            raise NotFound(f"no message {message_id} in #{channel}")
        if found.pinned:
            raise Conflict(f"{message_id} is pinned already")
        pinned = found.model_copy(update={"pinned": True})
        messages = [pinned if m.message_id == message_id else m for m in target.messages]
        self.state.channels[channel] = target.model_copy(update={"messages": messages})
        return pinned
