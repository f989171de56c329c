"""The bell's unread count on every page (one count, for logged-in readers only)."""

from arena.integrations.selectors import unread_count


def inbox(request) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"unread_notifications": unread_count(user=user)}
