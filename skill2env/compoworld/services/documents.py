"""Documents: the team's shared documents — policies, runbooks, notes — with sharing and links to records."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.service import Service, ServiceState, tool
from skill2env.compoworld.types import DocumentId, EmailAddress, Reference, Timestamp

Role = Literal["viewer", "editor"]
MAX_BODY = 20_000


class Document(BaseModel):
    document_id: DocumentId
    title: str
    body: str
    owner: EmailAddress
    shared_with: dict[str, Role] = Field(default_factory=dict)
    """Email → role."""
    links: list[Reference] = Field(default_factory=list)
    version: int = 1
    updated_at: Timestamp


class DocumentSummary(BaseModel):
    document_id: DocumentId
    title: str
    owner: EmailAddress
    version: int


class DocumentsState(ServiceState):
    documents: dict[str, Document] = Field(default_factory=dict)


class Documents(Service):
    name = "documents"
    domain = "office"
    description = "Shared documents: create, search, append, share with a role, link to business records."
    State = DocumentsState
    state: DocumentsState

    @classmethod
    def fixture(cls, universe: Any) -> DocumentsState:
        state = DocumentsState(clock=universe.now)
        owner = universe.staff[0].email
        texts = (
            (
                "Refund policy",
                "Refunds up to 50.00 USD are approved automatically. Larger refunds need finance "
                "approval. Damaged items are refunded in full on a photo; late deliveries get 10%.",
            ),
            (
                "Shipping runbook",
                "Orders ship once paid. Reserve stock first, then create the shipment and "
                "record its tracking number on the order. Lost parcels: open a ticket with the carrier.",
            ),
            (
                "Incident response",
                "Sev1: page the on-call engineer at once and open an incident. Post updates "
                "in the #ops channel every 30 minutes. Resolve with a summary.",
            ),
        )
        for title, body in texts:
            document_id = state.next_id("DOC")
            state.documents[document_id] = Document(
                document_id=document_id, title=title, body=body, owner=owner, updated_at=universe.now
            )
        return state

    def _document(self, document_id: str) -> Document:
        if document_id not in self.state.documents:
            raise NotFound(f"no document {document_id}")
        return self.state.documents[document_id]

    @tool(
        reads=("documents",), writes=("documents",), intent="write a document “{title}” owned by {owner} saying: {body}"
    )
    def create_document(self, title: str, body: str, owner: EmailAddress) -> Document:
        """Create a document.

        Args:
            title: The title; must not repeat another document's.
            body: The text (at most 20,000 characters).
            owner: Who owns it.

        Raises:
            InvalidArgument: Empty title or a body too long.
            Conflict: A document with that title exists.
        """
        if not title.strip() or len(body) > MAX_BODY:
            raise InvalidArgument("a document needs a title and at most 20,000 characters")
        if any(d.title.lower() == title.strip().lower() for d in self.state.documents.values()):
            raise Conflict(f"a document titled {title!r} exists")
        document = Document(
            document_id=self.state.next_id("DOC"), title=title.strip(), body=body, owner=owner, updated_at=self.now
        )
        self.state.documents[document.document_id] = document
        return document

    @tool(reads=("documents",), intent="open {document_id}", reports=("title",))
    def get_document(self, document_id: DocumentId) -> Document:
        """Read a document.

        Args:
            document_id: The document.

        Raises:
            NotFound: No such document.
        """
        return self._document(document_id)

    @tool(reads=("documents",), intent="find the documents about “{query}”")
    def search_documents(self, query: str) -> list[DocumentSummary]:
        """Find documents whose title or text contains every word of a query.

        Args:
            query: Words to find (case-insensitive).

        Raises:
            InvalidArgument: The query is empty.
        """
        words = query.lower().split()
        if not words:
            raise InvalidArgument("the query is empty")
        return [
            DocumentSummary(document_id=d.document_id, title=d.title, owner=d.owner, version=d.version)
            for d in self.state.documents.values()
            if all(w in f"{d.title} {d.body}".lower() for w in words)
        ]

    @tool(reads=("documents",), writes=("documents",), intent="add to {document_id}: “{text}”")
    def append_to_document(self, document_id: DocumentId, text: str) -> Document:
        """Append a paragraph to a document (a new version).

        Args:
            document_id: The document.
            text: The paragraph.

        Raises:
            NotFound: No such document.
            InvalidArgument: Empty text, or the document would exceed 20,000 characters.
        """
        document = self._document(document_id)
        body = f"{document.body}\n\n{text.strip()}" if document.body else text.strip()
        if not text.strip() or len(body) > MAX_BODY:
            raise InvalidArgument("append non-empty text; a document holds at most 20,000 characters")
        updated = document.model_copy(update={"body": body, "version": document.version + 1, "updated_at": self.now})
        self.state.documents[document_id] = updated
        return updated

    @tool(reads=("documents",), writes=("documents",), intent="share {document_id} with {email} as {role}")
    def share_document(self, document_id: DocumentId, email: EmailAddress, role: Role = "viewer") -> Document:
        """Share a document with someone as viewer or editor (sharing again changes the role).

        Args:
            document_id: The document.
            email: Who to share it with.
            role: What they may do.

        Raises:
            NotFound: No such document.
            Conflict: They own it, or already have that role.
        """
        document = self._document(document_id)
        if email == document.owner or document.shared_with.get(email) == role:
            raise Conflict(f"{email} already has access to {document_id}")
        updated = document.model_copy(update={"shared_with": {**document.shared_with, email: role}})
        self.state.documents[document_id] = updated
        return updated

    @tool(reads=("documents",), writes=("documents",), intent="link {reference} to {document_id}")
    def link_record(self, document_id: DocumentId, reference: Reference) -> Document:
        """Link a business record (order, ticket, incident, …) to a document.

        Args:
            document_id: The document.
            reference: The record's identifier.

        Raises:
            NotFound: No such document.
            Conflict: It is linked already.
        """
        document = self._document(document_id)
        if reference in document.links:
            raise Conflict(f"{reference} is linked to {document_id} already")
        updated = document.model_copy(update={"links": [*document.links, reference]})
        self.state.documents[document_id] = updated
        return updated
