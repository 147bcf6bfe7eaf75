"""Forms whose answer cannot be repeated: sent once, even when the browser
sends them again (a reload of the answer page re-posts the form).

The answer to such a form shows a secret exactly once and does not keep it,
so it cannot redirect to a page that shows it (Post/Redirect/Get would need
the secret stored). Instead each rendered form carries a fresh token; the
session remembers the tokens already used, and a second post of one is
answered "already done" instead of doing it again.
"""

from __future__ import annotations

import secrets

FIELD = "once"
_SESSION_KEY = "forms_sent_once"
_REMEMBERED = 50  # tokens kept per session; older forms are long gone


def once_token() -> str:
    """A token for one rendering of the form (its hidden ``once`` field)."""
    return secrets.token_urlsafe(16)


def once_claim(request) -> bool:
    """True the first time this form's token is posted; False when it was
    posted before. A post without a token (an old page, a script) counts as
    first: the token guards against repeats, it is not a credential."""
    token = request.POST.get(FIELD, "")
    if not token:
        return True
    used = list(request.session.get(_SESSION_KEY, []))
    if token in used:
        return False
    request.session[_SESSION_KEY] = [*used, token][-_REMEMBERED:]
    return True
