"""Web Push: a nudge to a player's devices when it is their turn at a table played at its own pace (the
``Pusher``), sent only where the server may reach (``addresses``), signed with the server's kept VAPID key."""

from .addresses import MAX_ENDPOINT_LENGTH, EndpointRefused, is_public, parse_endpoint
from .keys import VapidKey, load_key
from .pusher import REMINDER_SECONDS, Nudge, Pusher
from .sender import Outcome, Sender
from .subscriptions import SubscriptionRefused, check_subscription

__all__ = [
    "MAX_ENDPOINT_LENGTH",
    "REMINDER_SECONDS",
    "EndpointRefused",
    "Nudge",
    "Outcome",
    "Pusher",
    "Sender",
    "SubscriptionRefused",
    "VapidKey",
    "check_subscription",
    "is_public",
    "load_key",
    "parse_endpoint",
]
