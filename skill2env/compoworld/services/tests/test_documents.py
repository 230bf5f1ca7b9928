"""documents: creation, search, versions, sharing, links."""

from __future__ import annotations

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.services.documents import Documents
from skill2env.compoworld.services.tests.support import fresh, raises


def test_create_and_search() -> None:
    documents, universe = fresh(Documents)
    owner = universe.staff[1].email
    created = documents.call(
        "create_document", {"title": "Returns FAQ", "body": "How to return a kettle.", "owner": owner}
    )
    assert created["version"] == 1 and created["owner"] == owner
    with raises(Conflict, "exists"):
        documents.call("create_document", {"title": "returns faq", "body": "x", "owner": owner})
    found = documents.call("search_documents", {"query": "refunds approval"})
    assert [d["title"] for d in found] == ["Refund policy"]
    with raises(InvalidArgument):
        documents.call("search_documents", {"query": "  "})


def test_append_bumps_the_version() -> None:
    documents, _ = fresh(Documents)
    document_id = next(iter(documents.state.documents))
    updated = documents.call("append_to_document", {"document_id": document_id, "text": "Updated March 2025."})
    assert updated["version"] == 2 and updated["body"].endswith("Updated March 2025.")
    with raises(InvalidArgument):
        documents.call("append_to_document", {"document_id": document_id, "text": ""})
    with raises(NotFound):
        documents.call("get_document", {"document_id": "DOC-9999"})


def test_sharing_and_links() -> None:
    documents, universe = fresh(Documents)
    document = next(iter(documents.state.documents.values()))
    reader = universe.staff[3].email
    shared = documents.call("share_document", {"document_id": document.document_id, "email": reader})
    assert shared["shared_with"] == {reader: "viewer"}
    assert documents.call("share_document", {"document_id": document.document_id, "email": reader, "role": "editor"})[
        "shared_with"
    ] == {reader: "editor"}
    with raises(Conflict):
        documents.call("share_document", {"document_id": document.document_id, "email": document.owner})
    documents.call("link_record", {"document_id": document.document_id, "reference": "INC-1001"})
    with raises(Conflict, "linked"):
        documents.call("link_record", {"document_id": document.document_id, "reference": "INC-1001"})
    with raises(InvalidArgument, "reference"):
        documents.call("link_record", {"document_id": document.document_id, "reference": "incident one"})
