"""The services the project ships, by name."""

from __future__ import annotations

from skill2env.compoworld.errors import UnknownService
from skill2env.compoworld.service import Service
from skill2env.compoworld.services.calendars import Calendar
from skill2env.compoworld.services.chat import Chat
from skill2env.compoworld.services.crm import Crm
from skill2env.compoworld.services.documents import Documents
from skill2env.compoworld.services.inventory import Inventory
from skill2env.compoworld.services.mail import Email
from skill2env.compoworld.services.oncall import OnCall
from skill2env.compoworld.services.orders import Orders
from skill2env.compoworld.services.payments import Payments
from skill2env.compoworld.services.refunds import Refunds
from skill2env.compoworld.services.sheets import Spreadsheet
from skill2env.compoworld.services.shipping import Shipping
from skill2env.compoworld.services.tickets import Tickets

SERVICES: dict[str, type[Service]] = {
    cls.name: cls
    for cls in (
        Crm,
        Orders,
        Inventory,
        Payments,
        Refunds,
        Spreadsheet,
        Calendar,
        Documents,
        Email,
        Chat,
        Tickets,
        Shipping,
        OnCall,
    )
}
"""Every shipped service class by its name."""


def service_class(name: str) -> type[Service]:
    """Raises: UnknownService: no service of that name."""
    if name not in SERVICES:
        raise UnknownService(f"no service {name!r}; services: {', '.join(SERVICES)}")
    return SERVICES[name]


def own_tests(name: str) -> str:
    """The file name of a service's own tests in `services/tests/`."""
    return f"test_{service_class(name).__module__.rsplit('.', 1)[-1]}.py"


__all__ = ["SERVICES", "own_tests", "service_class"]
